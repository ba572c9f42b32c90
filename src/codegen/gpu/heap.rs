//! Where kernels' per-thread scratch arrays (`alloc thread`) live.
//!
//! An iteration frees what it allocates, so a thread holds at most one of
//! each at a time, and one buffer a thread serves every iteration. Small
//! constant sizes go on the thread's stack (`stack_scratch`). Sizes host
//! code knows (constants and the nest's free variables) come from the
//! **per-nest scratch**: in the kernel forms whose threads each run their
//! iterations in order (grid-stride maps, histograms, reductions, scans,
//! one thread), host code asks the runtime (`arr_gpu_scratch`) to take one
//! device buffer of that many bytes a thread from the memory pool at each
//! launch of the nest's kernel and return it after; the kernel cuts it into
//! slices by its global thread id (`pooled_buffers`). The rest come from
//! the device heap (`malloc` in a thread; 8 MiB unless raised): before the
//! nest's kernels launch, host code raises it to the plan's bound when that
//! is known (the forms the per-nest scratch does not serve: row groups,
//! columns, tiles), once per thread plus a quarter for the allocator. A
//! size only the iteration knows leaves the heap as it is; a scratch array
//! the heap cannot hold is then a run-time error (`ARR_GPU_ERR_HEAP`),
//! never a crash.

use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::runtime::RuntimeFn;
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, VarId};
use crate::loopy::ir::{Block, LoopNest, MemSpace, SeqForm, Stmt};
use inkwell::values::{IntValue, PointerValue};
use std::collections::HashSet;

/// A per-thread scratch array of the per-nest scratch: its variable, its
/// element's bytes and its shape (constants and the nest's free
/// variables, so host code and the kernel compute the same size).
#[derive(Clone, Debug)]
pub(crate) struct Pooled {
    var: VarId,
    elem_bytes: u64,
    shape: Vec<Atom>,
}

/// Each slice of the per-nest scratch starts at a multiple of this.
const SLICE_ALIGN: i64 = 16;

/// Per-allocation bytes the device allocator may add.
const OVERHEAD: i64 = 16;

/// Per-thread scratch of a constant size up to this lives on the thread's
/// stack (as on the CPU).
const STACK_SCRATCH: u64 = 4096;

impl<'ctx> Gen<'ctx, '_> {
    /// Host side: raises the device heap for the threads of kernel
    /// `kernel` over `width` iterations (one thread: `None`) running
    /// `nest`'s iterations, when the bound is known; the arrays of
    /// `pooled` are not on the heap.
    pub(super) fn reserve_heap(
        &mut self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
        kernel: Option<usize>,
        width: IntValue<'ctx>,
        pooled: &[Pooled],
    ) -> Res<()> {
        let mut per_thread = Some(self.const_i64(0));
        let mut any = false;
        let pooled: HashSet<VarId> = pooled.iter().map(|p| p.var).collect();
        self.scratch_bytes(fr, &nest.body, &pooled, &mut per_thread, &mut any)?;
        let (Some(bytes), true) = (per_thread, any) else {
            return Ok(());
        };
        let threads = match kernel {
            Some(k) => {
                let f = self.runtime(RuntimeFn::GpuThreads);
                let k = self.ctx.i32_type().const_int(k as u64, false);
                self.call_int(f, &[k.into(), width.into()])?
            }
            None => self.const_i64(1),
        };
        let total = self.builder.build_int_mul(bytes, threads, "")?;
        let quarter = self
            .builder
            .build_int_signed_div(total, self.const_i64(4), "")?;
        let total = self.builder.build_int_add(total, quarter, "heap")?;
        let f = self.runtime(RuntimeFn::GpuReserveHeap);
        self.builder.build_call(f, &[total.into()], "")?;
        Ok(())
    }

    /// Adds to `sum` the bytes of every allocation in `block` (`None` once
    /// a size is unknown to host code); `any` records that there is one.
    fn scratch_bytes(
        &self,
        fr: &Frame<'ctx>,
        block: &Block,
        pooled: &HashSet<VarId>,
        sum: &mut Option<IntValue<'ctx>>,
        any: &mut bool,
    ) -> Res<()> {
        for stmt in block {
            match stmt {
                Stmt::Alloc { var, .. } if pooled.contains(&var.id) => {}
                Stmt::Alloc { var, shape, .. } => {
                    *any = true;
                    let mut bytes = Some(self.const_i64(var.ty.elem().bytes() as i64));
                    for d in shape {
                        bytes = match (bytes, self.host_size(fr, d)) {
                            (Some(b), Some(n)) => Some(self.builder.build_int_mul(b, n, "")?),
                            _ => None,
                        };
                    }
                    *sum = match (*sum, bytes) {
                        (Some(s), Some(b)) => {
                            let b = self
                                .builder
                                .build_int_add(b, self.const_i64(OVERHEAD), "")?;
                            Some(self.builder.build_int_add(s, b, "")?)
                        }
                        _ => None,
                    };
                }
                Stmt::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    self.scratch_bytes(fr, then_block, pooled, sum, any)?;
                    self.scratch_bytes(fr, else_block, pooled, sum, any)?;
                }
                Stmt::SeqLoop(lp) => {
                    if let SeqForm::While { cond, .. } = &lp.form {
                        self.scratch_bytes(fr, cond, pooled, sum, any)?;
                    }
                    self.scratch_bytes(fr, &lp.body, pooled, sum, any)?;
                }
                Stmt::Loop(inner) => self.scratch_bytes(fr, &inner.body, pooled, sum, any)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// The per-thread scratch arrays of `nest` (at any depth of its body)
    /// whose sizes host code knows and that do not go on the stack.
    pub(super) fn pooled_scratch(&self, fr: &Frame<'ctx>, nest: &LoopNest) -> Vec<Pooled> {
        let free: HashSet<VarId> = nest.free_vars().into_iter().collect();
        let mut out = Vec::new();
        self.collect_pooled(fr, &nest.body, &free, &mut out);
        out
    }

    fn collect_pooled(
        &self,
        fr: &Frame<'ctx>,
        block: &Block,
        free: &HashSet<VarId>,
        out: &mut Vec<Pooled>,
    ) {
        for stmt in block {
            match stmt {
                Stmt::Alloc {
                    var,
                    shape,
                    space: MemSpace::Thread,
                } => {
                    let known = shape.iter().all(|d| match d {
                        Atom::Var(v) => free.contains(v) && self.host_size(fr, d).is_some(),
                        _ => self.host_size(fr, d).is_some(),
                    });
                    let elem_bytes = var.ty.elem().bytes() as u64;
                    let constant = shape.iter().try_fold(elem_bytes, |b, d| {
                        let n = self.host_size(fr, d)?.get_zero_extended_constant()?;
                        b.checked_mul(n)
                    });
                    let on_stack = constant.is_some_and(|n| n <= STACK_SCRATCH);
                    if known && !on_stack {
                        out.push(Pooled {
                            var: var.id,
                            elem_bytes,
                            shape: shape.clone(),
                        });
                    }
                }
                Stmt::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    self.collect_pooled(fr, then_block, free, out);
                    self.collect_pooled(fr, else_block, free, out);
                }
                Stmt::SeqLoop(lp) => {
                    if let SeqForm::While { cond, .. } = &lp.form {
                        self.collect_pooled(fr, cond, free, out);
                    }
                    self.collect_pooled(fr, &lp.body, free, out);
                }
                Stmt::Loop(inner) => self.collect_pooled(fr, &inner.body, free, out),
                _ => {}
            }
        }
    }

    /// The offset of each array of `pooled` in a thread's slice, and the
    /// slice's bytes: each array's bytes (0 for a negative size, which its
    /// check reports before any use) rounded up to `SLICE_ALIGN`. The same
    /// code in host code and in the kernel, over the same values.
    fn pooled_layout(
        &self,
        fr: &Frame<'ctx>,
        pooled: &[Pooled],
    ) -> Res<(Vec<IntValue<'ctx>>, IntValue<'ctx>)> {
        let mut at = self.const_i64(0);
        let mut offsets = Vec::new();
        for p in pooled {
            let dims = p
                .shape
                .iter()
                .map(|d| self.int(fr, d))
                .collect::<Res<Vec<_>>>()?;
            let count = self.max0(self.product(&dims)?)?;
            let bytes =
                self.builder
                    .build_int_mul(count, self.const_i64(p.elem_bytes as i64), "")?;
            let bytes = self
                .builder
                .build_int_add(bytes, self.const_i64(SLICE_ALIGN - 1), "")?;
            let bytes = self
                .builder
                .build_and(bytes, self.const_i64(-SLICE_ALIGN), "")?;
            offsets.push(at);
            at = self.builder.build_int_add(at, bytes, "")?;
        }
        Ok((offsets, at))
    }

    /// Host side: every later launch of kernel `kernel` takes a per-nest
    /// scratch buffer of `pooled`'s bytes a thread from the pool.
    pub(super) fn reserve_pooled(
        &mut self,
        fr: &Frame<'ctx>,
        kernel: usize,
        pooled: &[Pooled],
    ) -> Res<()> {
        let (_, per_thread) = self.pooled_layout(fr, pooled)?;
        let f = self.runtime(RuntimeFn::GpuScratch);
        let k = self.ctx.i32_type().const_int(kernel as u64, false);
        self.builder
            .build_call(f, &[k.into(), per_thread.into()], "")?;
        Ok(())
    }

    /// Kernel side: each array of `pooled` at its place in the thread's
    /// slice of the per-nest scratch `scratch` (`thread_buffers`).
    pub(super) fn pooled_buffers(
        &mut self,
        fr: &Frame<'ctx>,
        pooled: &[Pooled],
        scratch: PointerValue<'ctx>,
    ) -> Res<()> {
        let (offsets, per_thread) = self.pooled_layout(fr, pooled)?;
        let (gid, _) = self.thread_range()?;
        let base = self.builder.build_int_mul(gid, per_thread, "")?;
        let i8t = self.ctx.i8_type();
        for (p, offset) in pooled.iter().zip(offsets) {
            let at = self.builder.build_int_add(base, offset, "")?;
            // Safety: the runtime sized the buffer for every thread's slice.
            let ptr = unsafe { self.builder.build_in_bounds_gep(i8t, scratch, &[at], "")? };
            self.thread_buffers.insert(p.var, ptr);
        }
        Ok(())
    }

    /// A size in host code: a constant, or a variable host code holds.
    fn host_size(&self, fr: &Frame<'ctx>, a: &Atom) -> Option<IntValue<'ctx>> {
        match a {
            Atom::Var(v) => match fr.vals.get(v) {
                Some(Val::Scalar(x, _))
                    if x.is_int_value() && x.into_int_value().get_type().get_bit_width() == 64 =>
                {
                    Some(x.into_int_value())
                }
                _ => None,
            },
            _ => self.int(fr, a).ok(),
        }
    }

    /// Puts every per-thread scratch array (`alloc thread`) of `block` and
    /// the nests inside it whose size is a small constant on the kernel
    /// thread's stack, once (`thread_buffers`): an iteration frees such an
    /// array before the next makes it, so one buffer serves them all, and
    /// LLVM keeps it in registers once it unrolls the loops over it.
    pub(super) fn stack_scratch(&mut self, fr: &Frame<'ctx>, block: &Block) -> Res<()> {
        for stmt in block {
            match stmt {
                Stmt::Alloc {
                    var,
                    shape,
                    space: MemSpace::Thread,
                } if !self.thread_buffers.contains_key(&var.id) => {
                    let mut bytes = Some(var.ty.elem().bytes() as u64);
                    for d in shape {
                        let n = self.int(fr, d).ok();
                        let n = n.and_then(|v| v.get_zero_extended_constant());
                        bytes = bytes.zip(n).and_then(|(b, n)| b.checked_mul(n));
                    }
                    if let Some(n) = bytes.filter(|n| *n <= STACK_SCRATCH) {
                        let ty = self.ctx.i8_type().array_type(n.max(1) as u32);
                        let p = self.entry_alloca(fr.func, ty.into())?;
                        if let Some(inst) = p.as_instruction() {
                            inst.set_alignment(16)
                                .map_err(|e| CodegenError::Internal(e.to_string()))?;
                        }
                        self.thread_buffers.insert(var.id, p);
                    }
                }
                Stmt::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    self.stack_scratch(fr, then_block)?;
                    self.stack_scratch(fr, else_block)?;
                }
                Stmt::SeqLoop(lp) => self.stack_scratch(fr, &lp.body)?,
                Stmt::Loop(inner) => self.stack_scratch(fr, &inner.body)?,
                _ => {}
            }
        }
        Ok(())
    }
}
