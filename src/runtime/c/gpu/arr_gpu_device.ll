; The device-side library of `--target nvptx` modules: what kernels call on
; the GPU where the emulator's arr_gpu_emu_device.c serves them on the CPU
; (see arr_gpu_device.h). The kernel generator parses this text into its
; device module (inkwell: Context::create_module_from_ir, then link), before
; optimisation; the functions are internal once linked.

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; arr_gpu_error in arr_gpu.h: lock, kind, loc, unused, seq, key, args[4].
%arr_gpu_error = type { i32, i32, i32, i32, i64, i64, [4 x i64] }

declare void @llvm.nvvm.nanosleep(i32)
declare void @llvm.nvvm.membar.gl()

; Records a run-time error in `err` unless it holds one earlier in
; sequential order, (seq, key) compared lexicographically. The record is
; guarded by a spin lock (threads of one warp may contend: sm_70's
; independent thread scheduling lets the holder go on). Fields are read and
; written volatile between fences, so no stale L1 line is seen; the host
; reads the record after the kernels are done.
define void @arr_gpu_fail(ptr addrspace(1) %err, i64 %seq, i64 %key, i32 %kind, i32 %loc,
                          i64 %a0, i64 %a1, i64 %a2, i64 %a3) {
entry:
  %lock = getelementptr inbounds %arr_gpu_error, ptr addrspace(1) %err, i32 0, i32 0
  br label %acquire

acquire:
  %pair = cmpxchg ptr addrspace(1) %lock, i32 0, i32 1 monotonic monotonic
  %got = extractvalue { i32, i1 } %pair, 1
  br i1 %got, label %locked, label %wait

wait:
  call void @llvm.nvvm.nanosleep(i32 32)
  br label %acquire

locked:
  call void @llvm.nvvm.membar.gl()
  %seq_p = getelementptr inbounds %arr_gpu_error, ptr addrspace(1) %err, i32 0, i32 4
  %key_p = getelementptr inbounds %arr_gpu_error, ptr addrspace(1) %err, i32 0, i32 5
  %old_seq = load volatile i64, ptr addrspace(1) %seq_p, align 8
  %old_key = load volatile i64, ptr addrspace(1) %key_p, align 8
  %empty = icmp eq i64 %old_seq, 0
  %seq_lt = icmp ult i64 %seq, %old_seq
  %seq_eq = icmp eq i64 %seq, %old_seq
  %key_lt = icmp ult i64 %key, %old_key
  %same_earlier = and i1 %seq_eq, %key_lt
  %earlier = or i1 %seq_lt, %same_earlier
  %take = or i1 %empty, %earlier
  br i1 %take, label %write, label %release

write:
  %kind_p = getelementptr inbounds %arr_gpu_error, ptr addrspace(1) %err, i32 0, i32 1
  %loc_p = getelementptr inbounds %arr_gpu_error, ptr addrspace(1) %err, i32 0, i32 2
  %a0_p = getelementptr inbounds %arr_gpu_error, ptr addrspace(1) %err, i32 0, i32 6, i32 0
  %a1_p = getelementptr inbounds %arr_gpu_error, ptr addrspace(1) %err, i32 0, i32 6, i32 1
  %a2_p = getelementptr inbounds %arr_gpu_error, ptr addrspace(1) %err, i32 0, i32 6, i32 2
  %a3_p = getelementptr inbounds %arr_gpu_error, ptr addrspace(1) %err, i32 0, i32 6, i32 3
  store volatile i32 %kind, ptr addrspace(1) %kind_p, align 4
  store volatile i32 %loc, ptr addrspace(1) %loc_p, align 8
  store volatile i64 %a0, ptr addrspace(1) %a0_p, align 8
  store volatile i64 %a1, ptr addrspace(1) %a1_p, align 8
  store volatile i64 %a2, ptr addrspace(1) %a2_p, align 8
  store volatile i64 %a3, ptr addrspace(1) %a3_p, align 8
  store volatile i64 %key, ptr addrspace(1) %key_p, align 8
  store volatile i64 %seq, ptr addrspace(1) %seq_p, align 8
  br label %release

release:
  call void @llvm.nvvm.membar.gl()
  %unlocked = atomicrmw xchg ptr addrspace(1) %lock, i32 0 monotonic
  ret void
}

; `*p += v` on floats in one atomic instruction (atom.add.f32 / .f64, a
; generic address: shared or global memory); the kernel generator's
; inkwell builds integer `atomicrmw` only. The result is the old value.
define float @arr_gpu_atomic_add_f32(ptr %p, float %v) {
entry:
  %old = atomicrmw fadd ptr %p, float %v monotonic, align 4
  ret float %old
}

define double @arr_gpu_atomic_add_f64(ptr %p, double %v) {
entry:
  %old = atomicrmw fadd ptr %p, double %v monotonic, align 8
  ret double %old
}
