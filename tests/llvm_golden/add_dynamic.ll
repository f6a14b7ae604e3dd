; ModuleID = 'add_dynamic.tile'
source_filename = "add_dynamic.tile"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tl_smem = external addrspace(3) global [0 x i8], align 128

define ptx_kernel void @tilec_add_dynamic_2fe02513(ptr addrspace(1) noalias readonly %X, ptr addrspace(1) noalias readonly %Y, ptr addrspace(1) noalias %Z, i32 %tl_dim_N) #0 {
entry:
  %v2 = alloca [8 x half], align 16
  %v = alloca [8 x half], align 16
  %w = alloca [8 x half], align 16
  br label %start

start:                                            ; preds = %entry
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %1 = icmp ult i32 %0, 256
  call void @llvm.assume(i1 %1)
  %lane = urem i32 %0, 32
  %warp = udiv i32 %0, 32
  %2 = icmp sge i32 %tl_dim_N, 8
  call void @llvm.assume(i1 %2)
  %3 = srem i32 %tl_dim_N, 8
  %4 = icmp eq i32 %3, 0
  call void @llvm.assume(i1 %4)
  %5 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %6 = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %7 = zext i32 %6 to i64
  %8 = trunc i64 %7 to i32
  %9 = icmp sge i32 %5, 0
  call void @llvm.assume(i1 %9)
  %10 = icmp slt i32 %5, %8
  call void @llvm.assume(i1 %10)
  br label %q

q:                                                ; preds = %latch, %start
  %q1 = phi i32 [ 0, %start ], [ %30, %latch ]
  %11 = icmp slt i32 %q1, 1
  br i1 %11, label %body, label %exit

body:                                             ; preds = %q
  %12 = mul i32 %q1, 256
  %13 = add i32 %0, %12
  %14 = mul i32 %13, 8
  %15 = sdiv i32 %14, 1
  %16 = mul i32 %5, 2048
  %17 = add i32 %16, %15
  %18 = sext i32 %tl_dim_N to i64
  %19 = sext i32 %17 to i64
  %20 = icmp ult i64 %19, %18
  %21 = sext i32 %17 to i64
  %22 = getelementptr inbounds half, ptr addrspace(1) %Z, i64 %21
  %23 = mul i32 %5, 2048
  %24 = add i32 %23, %15
  %25 = sext i32 %tl_dim_N to i64
  %26 = sext i32 %24 to i64
  %27 = icmp ult i64 %26, %25
  %28 = sext i32 %24 to i64
  %29 = getelementptr inbounds half, ptr addrspace(1) %X, i64 %28
  store <4 x i32> zeroinitializer, ptr %v, align 16
  br i1 %27, label %then, label %endif

latch:                                            ; preds = %endif6
  %30 = add i32 %q1, 1
  br label %q, !llvm.loop !2

exit:                                             ; preds = %q
  ret void

then:                                             ; preds = %body
  %31 = load <4 x i32>, ptr addrspace(1) %29, align 16
  store <4 x i32> %31, ptr %v, align 16
  br label %endif

endif:                                            ; preds = %then, %body
  %32 = mul i32 %5, 2048
  %33 = add i32 %32, %15
  %34 = sext i32 %tl_dim_N to i64
  %35 = sext i32 %33 to i64
  %36 = icmp ult i64 %35, %34
  %37 = sext i32 %33 to i64
  %38 = getelementptr inbounds half, ptr addrspace(1) %Y, i64 %37
  store <4 x i32> zeroinitializer, ptr %v2, align 16
  br i1 %36, label %then3, label %endif4

then3:                                            ; preds = %endif
  %39 = load <4 x i32>, ptr addrspace(1) %38, align 16
  store <4 x i32> %39, ptr %v2, align 16
  br label %endif4

endif4:                                           ; preds = %then3, %endif
  %40 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 0
  %41 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 0
  %42 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 0
  %43 = add i32 %15, 0
  %44 = load half, ptr %41, align 2
  %45 = fpext half %44 to float
  %46 = load half, ptr %42, align 2
  %47 = fpext half %46 to float
  %48 = fadd contract float %45, %47
  %49 = fptrunc float %48 to half
  store half %49, ptr %40, align 2
  %50 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 1
  %51 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 1
  %52 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 1
  %53 = add i32 %15, 1
  %54 = load half, ptr %51, align 2
  %55 = fpext half %54 to float
  %56 = load half, ptr %52, align 2
  %57 = fpext half %56 to float
  %58 = fadd contract float %55, %57
  %59 = fptrunc float %58 to half
  store half %59, ptr %50, align 2
  %60 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 2
  %61 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 2
  %62 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 2
  %63 = add i32 %15, 2
  %64 = load half, ptr %61, align 2
  %65 = fpext half %64 to float
  %66 = load half, ptr %62, align 2
  %67 = fpext half %66 to float
  %68 = fadd contract float %65, %67
  %69 = fptrunc float %68 to half
  store half %69, ptr %60, align 2
  %70 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 3
  %71 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 3
  %72 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 3
  %73 = add i32 %15, 3
  %74 = load half, ptr %71, align 2
  %75 = fpext half %74 to float
  %76 = load half, ptr %72, align 2
  %77 = fpext half %76 to float
  %78 = fadd contract float %75, %77
  %79 = fptrunc float %78 to half
  store half %79, ptr %70, align 2
  %80 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 4
  %81 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 4
  %82 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 4
  %83 = add i32 %15, 4
  %84 = load half, ptr %81, align 2
  %85 = fpext half %84 to float
  %86 = load half, ptr %82, align 2
  %87 = fpext half %86 to float
  %88 = fadd contract float %85, %87
  %89 = fptrunc float %88 to half
  store half %89, ptr %80, align 2
  %90 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 5
  %91 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 5
  %92 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 5
  %93 = add i32 %15, 5
  %94 = load half, ptr %91, align 2
  %95 = fpext half %94 to float
  %96 = load half, ptr %92, align 2
  %97 = fpext half %96 to float
  %98 = fadd contract float %95, %97
  %99 = fptrunc float %98 to half
  store half %99, ptr %90, align 2
  %100 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 6
  %101 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 6
  %102 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 6
  %103 = add i32 %15, 6
  %104 = load half, ptr %101, align 2
  %105 = fpext half %104 to float
  %106 = load half, ptr %102, align 2
  %107 = fpext half %106 to float
  %108 = fadd contract float %105, %107
  %109 = fptrunc float %108 to half
  store half %109, ptr %100, align 2
  %110 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 7
  %111 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 7
  %112 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 7
  %113 = add i32 %15, 7
  %114 = load half, ptr %111, align 2
  %115 = fpext half %114 to float
  %116 = load half, ptr %112, align 2
  %117 = fpext half %116 to float
  %118 = fadd contract float %115, %117
  %119 = fptrunc float %118 to half
  store half %119, ptr %110, align 2
  br i1 %20, label %then5, label %endif6

then5:                                            ; preds = %endif4
  %120 = load <4 x i32>, ptr %w, align 16
  store <4 x i32> %120, ptr addrspace(1) %22, align 16
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
declare noundef i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() #1

attributes #0 = { "nvvm.maxntid"="256" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write) }

!nvvm.annotations = !{!0, !1}

!0 = !{ptr @tilec_add_dynamic_2fe02513, !"kernel", i32 1}
!1 = !{ptr @tilec_add_dynamic_2fe02513, !"maxntidx", i32 256}
!2 = distinct !{!2, !3}
!3 = !{!"llvm.loop.unroll.full"}
