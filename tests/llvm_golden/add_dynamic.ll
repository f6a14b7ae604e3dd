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
  %q1 = phi i32 [ 0, %start ], [ %33, %latch ]
  %11 = icmp slt i32 %q1, 1
  br i1 %11, label %body, label %exit

body:                                             ; preds = %q
  %12 = sext i32 %q1 to i64
  %13 = mul i64 %12, 256
  %14 = sext i32 %0 to i64
  %15 = add i64 %14, %13
  %16 = mul i64 %15, 8
  %17 = sdiv i64 %16, 1
  %18 = trunc i64 %17 to i32
  %19 = mul i32 %5, 2048
  %20 = add i32 %19, %18
  %21 = sext i32 %tl_dim_N to i64
  %22 = sext i32 %20 to i64
  %23 = icmp ult i64 %22, %21
  %24 = sext i32 %20 to i64
  %25 = getelementptr inbounds half, ptr addrspace(1) %Z, i64 %24
  %26 = mul i32 %5, 2048
  %27 = add i32 %26, %18
  %28 = sext i32 %tl_dim_N to i64
  %29 = sext i32 %27 to i64
  %30 = icmp ult i64 %29, %28
  %31 = sext i32 %27 to i64
  %32 = getelementptr inbounds half, ptr addrspace(1) %X, i64 %31
  store <4 x i32> zeroinitializer, ptr %v, align 16
  br i1 %30, label %then, label %endif

latch:                                            ; preds = %endif6
  %33 = add i32 %q1, 1
  br label %q, !llvm.loop !2

exit:                                             ; preds = %q
  ret void

then:                                             ; preds = %body
  %34 = load <4 x i32>, ptr addrspace(1) %32, align 16
  store <4 x i32> %34, ptr %v, align 16
  br label %endif

endif:                                            ; preds = %then, %body
  %35 = mul i32 %5, 2048
  %36 = add i32 %35, %18
  %37 = sext i32 %tl_dim_N to i64
  %38 = sext i32 %36 to i64
  %39 = icmp ult i64 %38, %37
  %40 = sext i32 %36 to i64
  %41 = getelementptr inbounds half, ptr addrspace(1) %Y, i64 %40
  store <4 x i32> zeroinitializer, ptr %v2, align 16
  br i1 %39, label %then3, label %endif4

then3:                                            ; preds = %endif
  %42 = load <4 x i32>, ptr addrspace(1) %41, align 16
  store <4 x i32> %42, ptr %v2, align 16
  br label %endif4

endif4:                                           ; preds = %then3, %endif
  %43 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 0
  %44 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 0
  %45 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 0
  %46 = add i32 %18, 0
  %47 = load half, ptr %44, align 2
  %48 = fpext half %47 to float
  %49 = load half, ptr %45, align 2
  %50 = fpext half %49 to float
  %51 = fadd contract float %48, %50
  %52 = fptrunc float %51 to half
  store half %52, ptr %43, align 2
  %53 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 1
  %54 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 1
  %55 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 1
  %56 = add i32 %18, 1
  %57 = load half, ptr %54, align 2
  %58 = fpext half %57 to float
  %59 = load half, ptr %55, align 2
  %60 = fpext half %59 to float
  %61 = fadd contract float %58, %60
  %62 = fptrunc float %61 to half
  store half %62, ptr %53, align 2
  %63 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 2
  %64 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 2
  %65 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 2
  %66 = add i32 %18, 2
  %67 = load half, ptr %64, align 2
  %68 = fpext half %67 to float
  %69 = load half, ptr %65, align 2
  %70 = fpext half %69 to float
  %71 = fadd contract float %68, %70
  %72 = fptrunc float %71 to half
  store half %72, ptr %63, align 2
  %73 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 3
  %74 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 3
  %75 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 3
  %76 = add i32 %18, 3
  %77 = load half, ptr %74, align 2
  %78 = fpext half %77 to float
  %79 = load half, ptr %75, align 2
  %80 = fpext half %79 to float
  %81 = fadd contract float %78, %80
  %82 = fptrunc float %81 to half
  store half %82, ptr %73, align 2
  %83 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 4
  %84 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 4
  %85 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 4
  %86 = add i32 %18, 4
  %87 = load half, ptr %84, align 2
  %88 = fpext half %87 to float
  %89 = load half, ptr %85, align 2
  %90 = fpext half %89 to float
  %91 = fadd contract float %88, %90
  %92 = fptrunc float %91 to half
  store half %92, ptr %83, align 2
  %93 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 5
  %94 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 5
  %95 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 5
  %96 = add i32 %18, 5
  %97 = load half, ptr %94, align 2
  %98 = fpext half %97 to float
  %99 = load half, ptr %95, align 2
  %100 = fpext half %99 to float
  %101 = fadd contract float %98, %100
  %102 = fptrunc float %101 to half
  store half %102, ptr %93, align 2
  %103 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 6
  %104 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 6
  %105 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 6
  %106 = add i32 %18, 6
  %107 = load half, ptr %104, align 2
  %108 = fpext half %107 to float
  %109 = load half, ptr %105, align 2
  %110 = fpext half %109 to float
  %111 = fadd contract float %108, %110
  %112 = fptrunc float %111 to half
  store half %112, ptr %103, align 2
  %113 = getelementptr inbounds [8 x half], ptr %w, i64 0, i64 7
  %114 = getelementptr inbounds [8 x half], ptr %v, i64 0, i64 7
  %115 = getelementptr inbounds [8 x half], ptr %v2, i64 0, i64 7
  %116 = add i32 %18, 7
  %117 = load half, ptr %114, align 2
  %118 = fpext half %117 to float
  %119 = load half, ptr %115, align 2
  %120 = fpext half %119 to float
  %121 = fadd contract float %118, %120
  %122 = fptrunc float %121 to half
  store half %122, ptr %113, align 2
  br i1 %23, label %then5, label %endif6

then5:                                            ; preds = %endif4
  %123 = load <4 x i32>, ptr %w, align 16
  store <4 x i32> %123, ptr addrspace(1) %25, align 16
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
