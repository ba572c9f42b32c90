//! The device heap that kernels' scratch arrays come from (`malloc` in a
//! thread; 8 MiB unless raised). Before a nest's kernels launch, host code
//! raises it to the plan's bound when that is known: every array an
//! iteration allocates, at its size in host code's values (constants and
//! the nest's free variables), once per thread of the launch, plus a
//! quarter for the allocator. An iteration frees what it allocates, so a
//! thread holds at most one of each at a time. A size only the iteration
//! knows leaves the heap as it is; a scratch array the heap cannot hold is
//! then a run-time error (`ARR_GPU_ERR_HEAP`), never a crash.

use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::runtime::RuntimeFn;
use crate::codegen::CodegenError;
use crate::core::ir::Atom;
use crate::loopy::ir::{Block, LoopNest, MemSpace, SeqForm, Stmt};
use inkwell::values::IntValue;

/// Per-allocation bytes the device allocator may add.
const OVERHEAD: i64 = 16;

/// Per-thread scratch of a constant size up to this lives on the thread's
/// stack (as on the CPU).
const STACK_SCRATCH: u64 = 4096;

impl<'ctx> Gen<'ctx, '_> {
    /// Host side: raises the device heap for the threads of kernel
    /// `kernel` over `width` iterations (one thread: `None`) running
    /// `nest`'s iterations, when the bound is known.
    pub(super) fn reserve_heap(
        &mut self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
        kernel: Option<usize>,
        width: IntValue<'ctx>,
    ) -> Res<()> {
        let mut per_thread = Some(self.const_i64(0));
        let mut any = false;
        self.scratch_bytes(fr, &nest.body, &mut per_thread, &mut any)?;
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
        sum: &mut Option<IntValue<'ctx>>,
        any: &mut bool,
    ) -> Res<()> {
        for stmt in block {
            match stmt {
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
                    self.scratch_bytes(fr, then_block, sum, any)?;
                    self.scratch_bytes(fr, else_block, sum, any)?;
                }
                Stmt::SeqLoop(lp) => {
                    if let SeqForm::While { cond, .. } = &lp.form {
                        self.scratch_bytes(fr, cond, sum, any)?;
                    }
                    self.scratch_bytes(fr, &lp.body, sum, any)?;
                }
                Stmt::Loop(inner) => self.scratch_bytes(fr, &inner.body, sum, any)?,
                _ => {}
            }
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
