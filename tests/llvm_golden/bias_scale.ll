; ModuleID = 'bias_scale.tile'
source_filename = "bias_scale.tile"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tl_smem = external addrspace(3) global [0 x i8], align 128

define ptx_kernel void @tilec_bias_scale_09ffd9f0(ptr addrspace(1) noalias readonly %X, ptr addrspace(1) noalias readonly %B, ptr addrspace(1) noalias %Y, float %s) #0 {
entry:
  %v2 = alloca [4 x half], align 8
  %v = alloca [4 x half], align 8
  %w = alloca [4 x float], align 16
  br label %start

start:                                            ; preds = %entry
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %1 = icmp ult i32 %0, 256
  call void @llvm.assume(i1 %1)
  %lane = urem i32 %0, 32
  %warp = udiv i32 %0, 32
  %2 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %3 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %4 = icmp sge i32 %2, 0
  call void @llvm.assume(i1 %4)
  %5 = icmp slt i32 %2, 4
  call void @llvm.assume(i1 %5)
  %6 = icmp sge i32 %3, 0
  call void @llvm.assume(i1 %6)
  %7 = icmp slt i32 %3, 512
  call void @llvm.assume(i1 %7)
  br label %q

q:                                                ; preds = %latch, %start
  %q1 = phi i32 [ 0, %start ], [ %41, %latch ]
  %8 = icmp slt i32 %q1, 4
  br i1 %8, label %body, label %exit

body:                                             ; preds = %q
  %9 = mul i32 %q1, 256
  %10 = add i32 %0, %9
  %11 = mul i32 %10, 4
  %12 = sdiv i32 %11, 1
  %13 = srem i32 %12, 512
  %14 = sdiv i32 %11, 512
  %15 = mul i32 %3, 8
  %16 = add i32 %15, %14
  %17 = mul i32 %2, 512
  %18 = add i32 %17, %13
  %19 = sext i32 %16 to i64
  %20 = icmp ult i64 %19, 4096
  %21 = sext i32 %18 to i64
  %22 = icmp ult i64 %21, 2048
  %23 = and i1 %20, %22
  %24 = sext i32 %16 to i64
  %25 = sext i32 %18 to i64
  %26 = mul i64 %24, 2048
  %27 = add i64 %26, %25
  %28 = getelementptr inbounds float, ptr addrspace(1) %Y, i64 %27
  %29 = mul i32 %2, 512
  %30 = add i32 %29, %13
  %31 = sext i32 %16 to i64
  %32 = icmp ult i64 %31, 4096
  %33 = sext i32 %30 to i64
  %34 = icmp ult i64 %33, 2048
  %35 = and i1 %32, %34
  %36 = sext i32 %16 to i64
  %37 = sext i32 %30 to i64
  %38 = mul i64 %36, 2048
  %39 = add i64 %38, %37
  %40 = getelementptr inbounds half, ptr addrspace(1) %X, i64 %39
  store <2 x i32> zeroinitializer, ptr %v, align 8
  br i1 %35, label %then, label %endif

latch:                                            ; preds = %endif6
  %41 = add i32 %q1, 1
  br label %q, !llvm.loop !2

exit:                                             ; preds = %q
  ret void

then:                                             ; preds = %body
  %42 = load <2 x i32>, ptr addrspace(1) %40, align 8
  store <2 x i32> %42, ptr %v, align 8
  br label %endif

endif:                                            ; preds = %then, %body
  %43 = mul i32 %2, 512
  %44 = add i32 %43, %13
  %45 = sext i32 %44 to i64
  %46 = icmp ult i64 %45, 2048
  %47 = sext i32 %44 to i64
  %48 = getelementptr inbounds half, ptr addrspace(1) %B, i64 %47
  store <2 x i32> zeroinitializer, ptr %v2, align 8
  br i1 %46, label %then3, label %endif4

then3:                                            ; preds = %endif
  %49 = load <2 x i32>, ptr addrspace(1) %48, align 8
  store <2 x i32> %49, ptr %v2, align 8
  br label %endif4

endif4:                                           ; preds = %then3, %endif
  %50 = getelementptr inbounds [4 x float], ptr %w, i64 0, i64 0
  %51 = getelementptr inbounds [4 x half], ptr %v, i64 0, i64 0
  %52 = getelementptr inbounds [4 x half], ptr %v2, i64 0, i64 0
  %53 = add i32 %13, 0
  %54 = load half, ptr %51, align 2
  %55 = fpext half %54 to float
  %56 = fmul contract float %55, %s
  %57 = load half, ptr %52, align 2
  %58 = fpext half %57 to float
  %59 = fadd contract float %56, %58
  store float %59, ptr %50, align 4
  %60 = getelementptr inbounds [4 x float], ptr %w, i64 0, i64 1
  %61 = getelementptr inbounds [4 x half], ptr %v, i64 0, i64 1
  %62 = getelementptr inbounds [4 x half], ptr %v2, i64 0, i64 1
  %63 = add i32 %13, 1
  %64 = load half, ptr %61, align 2
  %65 = fpext half %64 to float
  %66 = fmul contract float %65, %s
  %67 = load half, ptr %62, align 2
  %68 = fpext half %67 to float
  %69 = fadd contract float %66, %68
  store float %69, ptr %60, align 4
  %70 = getelementptr inbounds [4 x float], ptr %w, i64 0, i64 2
  %71 = getelementptr inbounds [4 x half], ptr %v, i64 0, i64 2
  %72 = getelementptr inbounds [4 x half], ptr %v2, i64 0, i64 2
  %73 = add i32 %13, 2
  %74 = load half, ptr %71, align 2
  %75 = fpext half %74 to float
  %76 = fmul contract float %75, %s
  %77 = load half, ptr %72, align 2
  %78 = fpext half %77 to float
  %79 = fadd contract float %76, %78
  store float %79, ptr %70, align 4
  %80 = getelementptr inbounds [4 x float], ptr %w, i64 0, i64 3
  %81 = getelementptr inbounds [4 x half], ptr %v, i64 0, i64 3
  %82 = getelementptr inbounds [4 x half], ptr %v2, i64 0, i64 3
  %83 = add i32 %13, 3
  %84 = load half, ptr %81, align 2
  %85 = fpext half %84 to float
  %86 = fmul contract float %85, %s
  %87 = load half, ptr %82, align 2
  %88 = fpext half %87 to float
  %89 = fadd contract float %86, %88
  store float %89, ptr %80, align 4
  br i1 %23, label %then5, label %endif6

then5:                                            ; preds = %endif4
  %90 = load <4 x i32>, ptr %w, align 16
  store <4 x i32> %90, ptr addrspace(1) %28, align 16
  br label %endif6

endif6:                                           ; preds = %then5, %endif4
  br label %latch
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write)
declare void @llvm.assume(i1 noundef) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #1

attributes #0 = { "nvvm.maxntid"="256" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write) }

!nvvm.annotations = !{!0, !1}

!0 = !{ptr @tilec_bias_scale_09ffd9f0, !"kernel", i32 1}
!1 = !{ptr @tilec_bias_scale_09ffd9f0, !"maxntidx", i32 256}
!2 = distinct !{!2, !3}
!3 = !{!"llvm.loop.unroll.full"}
