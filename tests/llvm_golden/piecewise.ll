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
  %q10 = phi i32 [ 0, %exit5 ], [ %31, %latch8 ]
  %21 = icmp slt i32 %q10, 4
  br i1 %21, label %body7, label %exit9

body7:                                            ; preds = %q
  %22 = mul i32 %q10, 128
  %23 = add i32 %0, %22
  %24 = sdiv i32 %23, 1
  %25 = mul i32 %2, 512
  %26 = add i32 %25, %24
  %27 = sext i32 %26 to i64
  %28 = icmp ult i64 %27, 1000000
  %29 = sext i32 %26 to i64
  %30 = getelementptr inbounds float, ptr addrspace(1) %X, i64 %29
  br i1 %28, label %load, label %loaded

latch8:                                           ; preds = %endif19
  %31 = add i32 %q10, 1
  br label %q, !llvm.loop !4

exit9:                                            ; preds = %q
  ret void

load:                                             ; preds = %body7
  %32 = load float, ptr addrspace(1) %30, align 4
  br label %loaded

loaded:                                           ; preds = %load, %body7
  %33 = phi float [ 0.000000e+00, %body7 ], [ %32, %load ]
  store float 0.000000e+00, ptr %y, align 4
  %34 = fcmp olt float %33, %lo
  br i1 %34, label %then, label %else

then:                                             ; preds = %loaded
  %35 = load float, ptr %s, align 4
  %36 = fsub contract float %lo, %35
  store float %36, ptr %y, align 4
  br label %endif

else:                                             ; preds = %loaded
  %37 = fcmp ogt float %33, %hi
  br i1 %37, label %then11, label %else12

endif:                                            ; preds = %endif13, %then
  %38 = load float, ptr %y, align 4
  %39 = mul i32 %2, 512
  %40 = add i32 %39, %24
  %41 = sext i32 %40 to i64
  %42 = icmp ult i64 %41, 1000000
  %43 = sext i32 %40 to i64
  %44 = getelementptr inbounds float, ptr addrspace(1) %Y, i64 %43
  br i1 %42, label %then18, label %endif19

then11:                                           ; preds = %else
  %45 = load float, ptr %s, align 4
  %46 = fadd contract float %hi, %45
  store float %46, ptr %y, align 4
  br label %endif13

else12:                                           ; preds = %else
  %47 = getelementptr inbounds [4 x float], ptr %coef, i64 0, i64 3
  %48 = load float, ptr %47, align 4
  store float %48, ptr %y, align 4
  br label %t

endif13:                                          ; preds = %exit16, %then11
  br label %endif

t:                                                ; preds = %latch15, %else12
  %t17 = phi i32 [ 0, %else12 ], [ %57, %latch15 ]
  %49 = icmp slt i32 %t17, 3
  br i1 %49, label %body14, label %exit16

body14:                                           ; preds = %t
  %50 = load float, ptr %y, align 4
  %51 = fmul contract float %50, %33
  %52 = sub i32 2, %t17
  %53 = sext i32 %52 to i64
  %54 = getelementptr inbounds [4 x float], ptr %coef, i64 0, i64 %53
  %55 = load float, ptr %54, align 4
  %56 = fadd contract float %51, %55
  store float %56, ptr %y, align 4
  br label %latch15

latch15:                                          ; preds = %body14
  %57 = add i32 %t17, 1
  br label %t, !llvm.loop !5

exit16:                                           ; preds = %t
  br label %endif13

then18:                                           ; preds = %endif
  store float %38, ptr addrspace(1) %44, align 4
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
