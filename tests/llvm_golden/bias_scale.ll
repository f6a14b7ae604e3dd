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
  %q1 = phi i32 [ 0, %start ], [ %45, %latch ]
  %8 = icmp slt i32 %q1, 4
  br i1 %8, label %body, label %exit

body:                                             ; preds = %q
  %9 = sext i32 %q1 to i64
  %10 = mul i64 %9, 256
  %11 = sext i32 %0 to i64
  %12 = add i64 %11, %10
  %13 = mul i64 %12, 4
  %14 = sdiv i64 %13, 1
  %15 = srem i64 %14, 512
  %16 = trunc i64 %15 to i32
  %17 = sdiv i64 %13, 512
  %18 = trunc i64 %17 to i32
  %19 = mul i32 %3, 8
  %20 = add i32 %19, %18
  %21 = mul i32 %2, 512
  %22 = add i32 %21, %16
  %23 = sext i32 %20 to i64
  %24 = icmp ult i64 %23, 4096
  %25 = sext i32 %22 to i64
  %26 = icmp ult i64 %25, 2048
  %27 = and i1 %24, %26
  %28 = sext i32 %20 to i64
  %29 = sext i32 %22 to i64
  %30 = mul i64 %28, 2048
  %31 = add i64 %30, %29
  %32 = getelementptr inbounds float, ptr addrspace(1) %Y, i64 %31
  %33 = mul i32 %2, 512
  %34 = add i32 %33, %16
  %35 = sext i32 %20 to i64
  %36 = icmp ult i64 %35, 4096
  %37 = sext i32 %34 to i64
  %38 = icmp ult i64 %37, 2048
  %39 = and i1 %36, %38
  %40 = sext i32 %20 to i64
  %41 = sext i32 %34 to i64
  %42 = mul i64 %40, 2048
  %43 = add i64 %42, %41
  %44 = getelementptr inbounds half, ptr addrspace(1) %X, i64 %43
  store <2 x i32> zeroinitializer, ptr %v, align 8
  br i1 %39, label %then, label %endif

latch:                                            ; preds = %endif6
  %45 = add i32 %q1, 1
  br label %q, !llvm.loop !2

exit:                                             ; preds = %q
  ret void

then:                                             ; preds = %body
  %46 = load <2 x i32>, ptr addrspace(1) %44, align 8
  store <2 x i32> %46, ptr %v, align 8
  br label %endif

endif:                                            ; preds = %then, %body
  %47 = mul i32 %2, 512
  %48 = add i32 %47, %16
  %49 = sext i32 %48 to i64
  %50 = icmp ult i64 %49, 2048
  %51 = sext i32 %48 to i64
  %52 = getelementptr inbounds half, ptr addrspace(1) %B, i64 %51
  store <2 x i32> zeroinitializer, ptr %v2, align 8
  br i1 %50, label %then3, label %endif4

then3:                                            ; preds = %endif
  %53 = load <2 x i32>, ptr addrspace(1) %52, align 8
  store <2 x i32> %53, ptr %v2, align 8
  br label %endif4

endif4:                                           ; preds = %then3, %endif
  %54 = getelementptr inbounds [4 x float], ptr %w, i64 0, i64 0
  %55 = getelementptr inbounds [4 x half], ptr %v, i64 0, i64 0
  %56 = getelementptr inbounds [4 x half], ptr %v2, i64 0, i64 0
  %57 = add i32 %16, 0
  %58 = load half, ptr %55, align 2
  %59 = fpext half %58 to float
  %60 = fmul contract float %59, %s
  %61 = load half, ptr %56, align 2
  %62 = fpext half %61 to float
  %63 = fadd contract float %60, %62
  store float %63, ptr %54, align 4
  %64 = getelementptr inbounds [4 x float], ptr %w, i64 0, i64 1
  %65 = getelementptr inbounds [4 x half], ptr %v, i64 0, i64 1
  %66 = getelementptr inbounds [4 x half], ptr %v2, i64 0, i64 1
  %67 = add i32 %16, 1
  %68 = load half, ptr %65, align 2
  %69 = fpext half %68 to float
  %70 = fmul contract float %69, %s
  %71 = load half, ptr %66, align 2
  %72 = fpext half %71 to float
  %73 = fadd contract float %70, %72
  store float %73, ptr %64, align 4
  %74 = getelementptr inbounds [4 x float], ptr %w, i64 0, i64 2
  %75 = getelementptr inbounds [4 x half], ptr %v, i64 0, i64 2
  %76 = getelementptr inbounds [4 x half], ptr %v2, i64 0, i64 2
  %77 = add i32 %16, 2
  %78 = load half, ptr %75, align 2
  %79 = fpext half %78 to float
  %80 = fmul contract float %79, %s
  %81 = load half, ptr %76, align 2
  %82 = fpext half %81 to float
  %83 = fadd contract float %80, %82
  store float %83, ptr %74, align 4
  %84 = getelementptr inbounds [4 x float], ptr %w, i64 0, i64 3
  %85 = getelementptr inbounds [4 x half], ptr %v, i64 0, i64 3
  %86 = getelementptr inbounds [4 x half], ptr %v2, i64 0, i64 3
  %87 = add i32 %16, 3
  %88 = load half, ptr %85, align 2
  %89 = fpext half %88 to float
  %90 = fmul contract float %89, %s
  %91 = load half, ptr %86, align 2
  %92 = fpext half %91 to float
  %93 = fadd contract float %90, %92
  store float %93, ptr %84, align 4
  br i1 %27, label %then5, label %endif6

then5:                                            ; preds = %endif4
  %94 = load <4 x i32>, ptr %w, align 16
  store <4 x i32> %94, ptr addrspace(1) %32, align 16
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
