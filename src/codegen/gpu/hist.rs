//! Histograms whose updates are not one atomic instruction (a tuple of
//! bins that must change together, bins of 1 or 2 bytes): a grid-stride
//! kernel whose every update holds a lock per bin (a 32-bit word of a
//! lock array the host clears before the launch) from the read of the
//! bins to their write. A thread takes the lock with a compare-and-swap
//! and a fence, releases it with a fence and an exchange, and waits with
//! `nanosleep` (sm_70's independent thread scheduling lets the holder in
//! the same warp go on; on the emulator the pause lets the block's other
//! fibers run). Updates of different bins run in parallel; as with
//! atomics, updates of one bin run in any order (histogram operators are
//! commutative, as in Futhark).
//!
//! `lockable` checks the shape this needs: in each histogram's update,
//! one read of every bin, all at the same index, then one write of every
//! bin at that index, in one block, apart from the other histograms'
//! updates, and nothing else touching the bins. A check that fails while a
//! lock is held releases it before the thread ends.

use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, VarId};
use crate::loopy::ir::{block_vars, Block, LoopNest, Stmt};
use inkwell::values::{BasicValue, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, IntPredicate};
use std::collections::{BTreeSet, HashSet};

/// The locks of the kernel being generated.
pub(crate) struct Locks<'ctx> {
    /// The lock array (`i32` words): histogram `h`'s bin `i` at
    /// `offsets[h] + i`.
    base: PointerValue<'ctx>,
    /// Per histogram: its bins, the offset of its locks, its bin count.
    hists: Vec<(Vec<VarId>, IntValue<'ctx>, IntValue<'ctx>)>,
    /// The lock held (histogram, its address, bins written so far).
    held: Option<(usize, PointerValue<'ctx>, usize)>,
}

/// Whether every histogram update of `nest` has the shape a lock per bin
/// covers (see the module comment).
pub(super) fn lockable(nest: &LoopNest) -> bool {
    let mut seen = vec![(0usize, 0usize); nest.hists.len()];
    if !block_lockable(nest, &nest.body, &mut seen) {
        return false;
    }
    seen.iter()
        .zip(&nest.hists)
        .all(|(&(r, w), h)| r == h.bins.len() && w == h.bins.len())
}

fn hist_of(nest: &LoopNest, array: VarId) -> Option<usize> {
    nest.hists.iter().position(|h| h.bins.contains(&array))
}

/// Checks `block` and the blocks inside it; `seen` counts each
/// histogram's bin reads and writes.
fn block_lockable(nest: &LoopNest, block: &Block, seen: &mut [(usize, usize)]) -> bool {
    let bins: HashSet<VarId> = nest.hists.iter().flat_map(|h| h.bins.clone()).collect();
    // The histogram whose update is open in this block, and its index.
    let mut open: Option<(usize, &[Atom])> = None;
    for stmt in block {
        match stmt {
            Stmt::Read { array, index, .. } if bins.contains(array) => {
                let Some(h) = hist_of(nest, *array) else {
                    return false;
                };
                match open {
                    None if seen[h] == (0, 0) => open = Some((h, index)),
                    Some((o, at)) if o == h && at == index.as_slice() && seen[h].1 == 0 => {}
                    _ => return false,
                }
                seen[h].0 += 1;
            }
            Stmt::Write { array, index, .. } if bins.contains(array) => {
                let Some(h) = hist_of(nest, *array) else {
                    return false;
                };
                match open {
                    Some((o, at)) if o == h && at == index.as_slice() => {}
                    _ => return false,
                }
                seen[h].1 += 1;
                if seen[h].1 == nest.hists[h].bins.len() {
                    open = None;
                }
            }
            Stmt::If {
                then_block,
                else_block,
                ..
            } if open.is_none() => {
                if !block_lockable(nest, then_block, seen)
                    || !block_lockable(nest, else_block, seen)
                {
                    return false;
                }
            }
            other => {
                let mut uses = BTreeSet::new();
                let mut defs = HashSet::new();
                block_vars(std::slice::from_ref(other), &mut uses, &mut defs);
                if uses.iter().any(|v| bins.contains(v)) {
                    return false;
                }
            }
        }
    }
    open.is_none()
}

impl<'ctx> Gen<'ctx, '_> {
    /// In a locked histogram kernel: the lock array at `base`, laid out
    /// over `nest`'s histograms in order (the bins are in `fr`).
    pub(super) fn set_locks(
        &mut self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
        base: PointerValue<'ctx>,
    ) -> Res<()> {
        let mut at = self.const_i64(0);
        let mut hists = Vec::new();
        for h in &nest.hists {
            let first = h
                .bins
                .first()
                .ok_or_else(|| CodegenError::Internal("a histogram without bins".into()))?;
            let (_, _, shape) = self.array(fr, *first)?;
            let m = shape
                .first()
                .copied()
                .ok_or_else(|| CodegenError::Internal("bins without a length".into()))?;
            hists.push((h.bins.clone(), at, m));
            at = self.builder.build_int_add(at, m, "")?;
        }
        if let Some(d) = self.device.as_mut() {
            d.locks = Some(Locks {
                base,
                hists,
                held: None,
            });
        }
        Ok(())
    }

    /// Host side: the number of locks `nest`'s histograms need.
    pub(super) fn lock_count(&self, fr: &Frame<'ctx>, nest: &LoopNest) -> Res<IntValue<'ctx>> {
        let mut n = self.const_i64(0);
        for h in &nest.hists {
            if let Some(first) = h.bins.first() {
                let (_, _, shape) = self.array(fr, *first)?;
                if let Some(m) = shape.first() {
                    n = self.builder.build_int_add(n, *m, "")?;
                }
            }
        }
        Ok(n)
    }

    /// A read or write of a bin updated under a lock, generated here
    /// (volatile, so no stale L1 line is seen between the fences): the
    /// read that opens an update first takes the bin's lock, the write of
    /// its last bin then releases it. Returns false for other statements.
    pub(crate) fn locked_access(&mut self, fr: &mut Frame<'ctx>, stmt: &Stmt) -> Res<bool> {
        let (Stmt::Read { array, index, .. } | Stmt::Write { array, index, .. }) = stmt else {
            return Ok(false);
        };
        let Some(locks) = self.device.as_ref().and_then(|d| d.locks.as_ref()) else {
            return Ok(false);
        };
        let Some(h) = locks.hists.iter().position(|(b, _, _)| b.contains(array)) else {
            return Ok(false);
        };
        let (ptr, elem, shape) = self.array(fr, *array)?;
        let idx = self.checked_index(fr, &shape, index, None)?;
        let p = self.offset_ptr(ptr, elem, &shape, &idx)?;
        let volatile = |v: inkwell::values::InstructionValue<'ctx>| {
            v.set_volatile(true)
                .map_err(|e| CodegenError::Internal(format!("volatile bin access: {e}")))
        };
        match stmt {
            Stmt::Read { var, .. } => {
                if self.held_lock().is_none() {
                    let i = idx
                        .first()
                        .copied()
                        .ok_or_else(|| CodegenError::Internal("a bin without an index".into()))?;
                    self.acquire(h, i)?;
                }
                let v = self.builder.build_load(self.mem_type(elem), p, "bin")?;
                if let Some(inst) = v.as_instruction_value() {
                    volatile(inst)?;
                }
                let v = self.load_from_mem(v, elem)?;
                fr.vals.insert(var.id, Val::Scalar(v, elem));
            }
            Stmt::Write { value, .. } => {
                let (v, t) = self.scalar(fr, value)?;
                let v = self.store_to_mem(v, t)?;
                volatile(self.builder.build_store(p, v)?)?;
                let Some(locks) = self.device.as_mut().and_then(|d| d.locks.as_mut()) else {
                    return Ok(true);
                };
                let Some((h, lock, written)) = locks.held else {
                    return Err(CodegenError::Internal(
                        "a bin written without its lock".into(),
                    ));
                };
                if written + 1 < locks.hists[h].0.len() {
                    locks.held = Some((h, lock, written + 1));
                } else {
                    locks.held = None;
                    self.release(lock)?;
                }
            }
            _ => {}
        }
        Ok(true)
    }

    fn held_lock(&self) -> Option<(usize, PointerValue<'ctx>, usize)> {
        self.device
            .as_ref()
            .and_then(|d| d.locks.as_ref())
            .and_then(|l| l.held)
    }

    /// Takes the lock of histogram `h`'s bin `i`.
    pub(super) fn acquire(&mut self, h: usize, i: IntValue<'ctx>) -> Res<()> {
        let Some(locks) = self.device.as_ref().and_then(|d| d.locks.as_ref()) else {
            return Err(CodegenError::Internal("a lock without locks".into()));
        };
        let (base, offset, m) = (locks.base, locks.hists[h].1, locks.hists[h].2);
        // In range under the update's guard; clamped so that the lock's
        // address never leaves the array whatever the body does.
        let inside = self
            .builder
            .build_int_compare(IntPredicate::ULT, i, m, "")?;
        let i = self
            .builder
            .build_select(inside, i, self.const_i64(0), "")?
            .into_int_value();
        let at = self.builder.build_int_add(offset, i, "")?;
        let i32t = self.ctx.i32_type();
        // Safety: `at` is below the lock array's length (clamped above).
        let p = unsafe {
            self.builder
                .build_in_bounds_gep(i32t, base, &[at], "lock")?
        };
        let func = self
            .current_block()?
            .get_parent()
            .ok_or_else(|| CodegenError::Internal("a lock outside a function".into()))?;
        let spin = self.ctx.append_basic_block(func, "lock.spin");
        let wait = self.ctx.append_basic_block(func, "lock.wait");
        let got = self.ctx.append_basic_block(func, "lock.got");
        self.builder.build_unconditional_branch(spin)?;
        self.builder.position_at_end(spin);
        self.cmpxchg_branch(p, i32t.const_zero(), i32t.const_int(1, false), got, wait)?;
        self.builder.position_at_end(wait);
        self.nanosleep(64)?;
        self.builder.build_unconditional_branch(spin)?;
        self.builder.position_at_end(got);
        self.fence_gpu()?;
        if let Some(l) = self.device.as_mut().and_then(|d| d.locks.as_mut()) {
            l.held = Some((h, p, 0));
        }
        Ok(())
    }

    /// The lock `acquire` took, released after its update.
    pub(super) fn release_held_lock(&mut self) -> Res<()> {
        let held = self
            .device
            .as_mut()
            .and_then(|d| d.locks.as_mut())
            .and_then(|l| l.held.take());
        match held {
            Some((_, p, _)) => self.release(p),
            None => Err(CodegenError::Internal("no lock held".into())),
        }
    }

    /// Where a failing check ends the thread: the lock it holds, released.
    pub(crate) fn release_held(&self) -> Res<()> {
        match self.held_lock() {
            Some((_, p, _)) => self.release(p),
            None => Ok(()),
        }
    }

    fn release(&self, p: PointerValue<'ctx>) -> Res<()> {
        self.fence_gpu()?;
        self.builder.build_atomicrmw(
            AtomicRMWBinOp::Xchg,
            p,
            self.ctx.i32_type().const_zero(),
            AtomicOrdering::Monotonic,
        )?;
        Ok(())
    }

    /// A fence for the whole GPU (`membar.gl`; the emulator's is a
    /// sequentially consistent fence).
    pub(crate) fn fence_gpu(&self) -> Res<()> {
        let name = if self.emulated()? {
            "arr_emu_fence_gpu"
        } else {
            "llvm.nvvm.membar.gl"
        };
        let f = self.declare(name, None, &[]);
        self.builder.build_call(f, &[], "")?;
        Ok(())
    }

    /// A pause of about `ns` nanoseconds in a spin loop.
    pub(crate) fn nanosleep(&self, ns: u64) -> Res<()> {
        let i32t = self.ctx.i32_type();
        let name = if self.emulated()? {
            "arr_emu_nanosleep"
        } else {
            "llvm.nvvm.nanosleep"
        };
        let f = self.declare(name, None, &[i32t.into()]);
        self.builder
            .build_call(f, &[i32t.const_int(ns, false).into()], "")?;
        Ok(())
    }
}
