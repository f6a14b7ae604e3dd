; ModuleID = 'piecewise.tile'
source_filename = "piecewise.tile"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tl_smem = external addrspace(3) global [0 x i8], align 128

define ptx_kernel void @tilec_piecewise_95acb113(ptr addrspace(1) noalias readonly %X, ptr addrspace(1) noalias %Y, float %lo, float %hi) #0 {
entry:
  %y = alloca float, align 4
  %s = alloca float, align 4
  %c = alloca float, align 4
  %coef = alloca [4 x float], align 4
  br label %start

start:                                            ; preds = %entry
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %1 = icmp ult i32 %0, 128
  call void @llvm.assume(i1 %1)
  %lane = urem i32 %0, 32
  %warp = udiv i32 %0, 32
  %2 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %3 = icmp sge i32 %2, 0
  call void @llvm.assume(i1 %3)
  %4 = icmp slt i32 %2, 1954
  call void @llvm.assume(i1 %4)
  store float 1.000000e+00, ptr %c, align 4
  br label %k

k:                                                ; preds = %latch, %start
  %k1 = phi i32 [ 0, %start ], [ %11, %latch ]
  %5 = icmp slt i32 %k1, 4
  br i1 %5, label %body, label %exit

body:                                             ; preds = %k
  %6 = load float, ptr %c, align 4
  %7 = sext i32 %k1 to i64
  %8 = getelementptr inbounds [4 x float], ptr %coef, i64 0, i64 %7
  store float %6, ptr %8, align 4
  %9 = load float, ptr %c, align 4
  %10 = fmul contract float %9, 5.000000e-01
  store float %10, ptr %c, align 4
  br label %latch

latch:                                            ; preds = %body
  %11 = add i32 %k1, 1
  br label %k, !llvm.loop !2

exit:                                             ; preds = %k
  store float 0.000000e+00, ptr %s, align 4
  br label %k2

k2:                                               ; preds = %latch4, %exit
  %k6 = phi i64 [ 0, %exit ], [ %16, %latch4 ]
  %12 = icmp slt i64 %k6, 8
  br i1 %12, label %body3, label %exit5

body3:                                            ; preds = %k2
  %13 = sitofp i64 %k6 to float
  %14 = load float, ptr %s, align 4
  %15 = fadd contract float %14, %13
  store float %15, ptr %s, align 4
  br label %latch4

latch4:                                           ; preds = %body3
  %16 = add i64 %k6, 2
  br label %k2

exit5:                                            ; preds = %k2
  %17 = load float, ptr %s, align 4
  %18 = fdiv contract float %17, 4.000000e+00
  store float %18, ptr %s, align 4
  %19 = load float, ptr %s, align 4
  %20 = fsub contract float %19, 1.000000e+00
  store float %20, ptr %s, align 4
  br label %q

q:                                                ; preds = %latch8, %exit5
  %q10 = phi i32 [ 0, %exit5 ], [ %34, %latch8 ]
  %21 = icmp slt i32 %q10, 4
  br i1 %21, label %body7, label %exit9

body7:                                            ; preds = %q
  %22 = sext i32 %q10 to i64
  %23 = mul i64 %22, 128
  %24 = sext i32 %0 to i64
  %25 = add i64 %24, %23
  %26 = sdiv i64 %25, 1
  %27 = trunc i64 %26 to i32
  %28 = mul i32 %2, 512
  %29 = add i32 %28, %27
  %30 = sext i32 %29 to i64
  %31 = icmp ult i64 %30, 1000000
  %32 = sext i32 %29 to i64
  %33 = getelementptr inbounds float, ptr addrspace(1) %X, i64 %32
  br i1 %31, label %load, label %loaded

latch8:                                           ; preds = %endif19
  %34 = add i32 %q10, 1
  br label %q, !llvm.loop !4

exit9:                                            ; preds = %q
  ret void

load:                                             ; preds = %body7
  %35 = load float, ptr addrspace(1) %33, align 4
  br label %loaded

loaded:                                           ; preds = %load, %body7
  %36 = phi float [ 0.000000e+00, %body7 ], [ %35, %load ]
  store float 0.000000e+00, ptr %y, align 4
  %37 = fcmp olt float %36, %lo
  br i1 %37, label %then, label %else

then:                                             ; preds = %loaded
  %38 = load float, ptr %s, align 4
  %39 = fsub contract float %lo, %38
  store float %39, ptr %y, align 4
  br label %endif

else:                                             ; preds = %loaded
  %40 = fcmp ogt float %36, %hi
  br i1 %40, label %then11, label %else12

endif:                                            ; preds = %endif13, %then
  %41 = load float, ptr %y, align 4
  %42 = mul i32 %2, 512
  %43 = add i32 %42, %27
  %44 = sext i32 %43 to i64
  %45 = icmp ult i64 %44, 1000000
  %46 = sext i32 %43 to i64
  %47 = getelementptr inbounds float, ptr addrspace(1) %Y, i64 %46
  br i1 %45, label %then18, label %endif19

then11:                                           ; preds = %else
  %48 = load float, ptr %s, align 4
  %49 = fadd contract float %hi, %48
  store float %49, ptr %y, align 4
  br label %endif13

else12:                                           ; preds = %else
  %50 = getelementptr inbounds [4 x float], ptr %coef, i64 0, i64 3
  %51 = load float, ptr %50, align 4
  store float %51, ptr %y, align 4
  br label %t

endif13:                                          ; preds = %exit16, %then11
  br label %endif

t:                                                ; preds = %latch15, %else12
  %t17 = phi i32 [ 0, %else12 ], [ %60, %latch15 ]
  %52 = icmp slt i32 %t17, 3
  br i1 %52, label %body14, label %exit16

body14:                                           ; preds = %t
  %53 = load float, ptr %y, align 4
  %54 = fmul contract float %53, %36
  %55 = sub i32 2, %t17
  %56 = sext i32 %55 to i64
  %57 = getelementptr inbounds [4 x float], ptr %coef, i64 0, i64 %56
  %58 = load float, ptr %57, align 4
  %59 = fadd contract float %54, %58
  store float %59, ptr %y, align 4
  br label %latch15

latch15:                                          ; preds = %body14
  %60 = add i32 %t17, 1
  br label %t, !llvm.loop !5

exit16:                                           ; preds = %t
  br label %endif13

then18:                                           ; preds = %endif
  store float %41, ptr addrspace(1) %47, align 4
  br label %endif19

endif19:                                          ; preds = %then18, %endif
  br label %latch8
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write)
declare void @llvm.assume(i1 noundef) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

attributes #0 = { "nvvm.maxntid"="128" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write) }

!nvvm.annotations = !{!0, !1}

!0 = !{ptr @tilec_piecewise_95acb113, !"kernel", i32 1}
!1 = !{ptr @tilec_piecewise_95acb113, !"maxntidx", i32 128}
!2 = distinct !{!2, !3}
!3 = !{!"llvm.loop.unroll.full"}
!4 = distinct !{!4, !3}
!5 = distinct !{!5, !3}
