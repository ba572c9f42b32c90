//! Atomic histogram updates: one `atomicrmw` where the operator and type
//! have one, else a compare-and-swap loop on the bin's bit pattern (opened
//! by the bin's read, closed by its write). Used while `Mode::atomic_bins`
//! names the bins of the body being generated.

use super::*;
use crate::core::ir::BinOp;
use inkwell::{AtomicOrdering, AtomicRMWBinOp};

/// The open compare-and-swap loop of an atomic bin update: the bin's
/// address, the value read (as bits) and the block that reads it again.
pub(crate) struct Cas<'ctx> {
    ptr: PointerValue<'ctx>,
    old_bits: IntValue<'ctx>,
    retry: BasicBlock<'ctx>,
}

/// The `atomicrmw` operation of `op` on bins of integer type `elem`, if
/// it has one (the sign picks min and max).
pub(crate) fn rmw_op(op: BinOp, elem: ScalarType) -> Option<AtomicRMWBinOp> {
    let signed = matches!(
        elem,
        ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64
    );
    let unsigned = matches!(
        elem,
        ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64
    );
    if !signed && !unsigned {
        return None;
    }
    Some(match op {
        BinOp::Add => AtomicRMWBinOp::Add,
        BinOp::And => AtomicRMWBinOp::And,
        BinOp::Or => AtomicRMWBinOp::Or,
        BinOp::Xor => AtomicRMWBinOp::Xor,
        BinOp::Min if signed => AtomicRMWBinOp::Min,
        BinOp::Max if signed => AtomicRMWBinOp::Max,
        BinOp::Min => AtomicRMWBinOp::UMin,
        BinOp::Max => AtomicRMWBinOp::UMax,
        _ => return None,
    })
}

impl<'ctx> Gen<'ctx, '_> {
    /// `old = bins[i]; r = old op v; bins[i] = r` with an operator the
    /// processor has an atomic instruction for: one `atomicrmw`. Returns
    /// how many statements it covered (0: not this pattern).
    pub(crate) fn atomic_rmw(&mut self, fr: &mut Frame<'ctx>, stmts: &[Stmt]) -> Res<usize> {
        let [Stmt::Read {
            var: old,
            array,
            index,
            check: None,
        }, Stmt::Let {
            var: result,
            exp: crate::loopy::ir::ScalarExp::BinOp(op, x, y),
            ..
        }, Stmt::Write {
            array: written,
            index: written_at,
            value: Atom::Var(value),
        }, ..] = stmts
        else {
            return Ok(0);
        };
        let bin = *array;
        if !self.mode.atomic_bins.contains(&bin)
            || *written != bin
            || written_at != index
            || *value != result.id
        {
            return Ok(0);
        }
        let operand = match (x, y) {
            (Atom::Var(v), other) | (other, Atom::Var(v)) if *v == old.id => *other,
            _ => return Ok(0),
        };
        if operand == Atom::Var(old.id) {
            return Ok(0);
        }
        let elem = old.ty.elem();
        let rmw = rmw_op(*op, elem);
        // On a GPU a float add is one atomic instruction too.
        let float_add = self.device.is_some()
            && *op == BinOp::Add
            && matches!(elem, ScalarType::F32 | ScalarType::F64);
        if rmw.is_none() && !float_add {
            return Ok(0);
        }
        let (ptr, elem, shape) = self.array(fr, bin)?;
        let idx = self.checked_index(fr, &shape, index, None)?;
        let p = self.offset_ptr(ptr, elem, &shape, &idx)?;
        match rmw {
            Some(rmw) => {
                let v = self.int(fr, &operand)?;
                self.builder
                    .build_atomicrmw(rmw, p, v, AtomicOrdering::Monotonic)?;
            }
            None => {
                let (v, _) = self.scalar(fr, &operand)?;
                self.float_atomic_add(p, v, elem)?;
            }
        }
        self.count_one(Counter::Reads)?;
        self.count_one(Counter::Writes)?;
        Ok(3)
    }

    /// The read that opens a compare-and-swap update of a bin: an atomic
    /// load in a block the matching write branches back to when another
    /// thread changed the bin in between.
    pub(crate) fn cas_read(
        &mut self,
        fr: &mut Frame<'ctx>,
        var: &crate::core::ir::Var,
        array: VarId,
        index: &[Atom],
    ) -> Res<()> {
        let (ptr, elem, shape) = self.array(fr, array)?;
        let idx = self.checked_index(fr, &shape, index, None)?;
        let p = self.offset_ptr(ptr, elem, &shape, &idx)?;
        let (retry, old_bits) = self.cas_loop_head(fr.func, p, elem)?;
        let mem = self
            .builder
            .build_bit_cast(old_bits, self.mem_type(elem), "")?;
        let v = self.load_from_mem(mem, elem)?;
        fr.vals.insert(var.id, Val::Scalar(v, elem));
        self.cas = Some(Cas {
            ptr: p,
            old_bits,
            retry,
        });
        Ok(())
    }

    /// The write that closes a compare-and-swap update.
    pub(crate) fn cas_write(&mut self, fr: &mut Frame<'ctx>, value: &Atom) -> Res<()> {
        let Some(cas) = self.cas.take() else {
            return err("an atomic bin written without being read");
        };
        let (v, t) = self.scalar(fr, value)?;
        let mem = self.store_to_mem(v, t)?;
        let new_bits = self
            .builder
            .build_bit_cast(mem, cas.old_bits.get_type(), "")?
            .into_int_value();
        let done = self.ctx.append_basic_block(fr.func, "cas.done");
        self.cmpxchg_branch(cas.ptr, cas.old_bits, new_bits, done, cas.retry)?;
        self.builder.position_at_end(done);
        self.count_one(Counter::Reads)?;
        self.count_one(Counter::Writes)?;
        Ok(())
    }

    /// The integer type of `elem`'s bits.
    pub(crate) fn bits_type(&self, elem: ScalarType) -> inkwell::types::IntType<'ctx> {
        match elem.bytes() {
            1 => self.ctx.i8_type(),
            2 => self.ctx.i16_type(),
            4 => self.ctx.i32_type(),
            _ => self.ctx.i64_type(),
        }
    }

    /// The head of a compare-and-swap loop on the `elem` at `p`: a block
    /// (returned, to branch back to) that loads its bits atomically
    /// (relaxed).
    pub(crate) fn cas_loop_head(
        &self,
        func: FunctionValue<'ctx>,
        p: PointerValue<'ctx>,
        elem: ScalarType,
    ) -> Res<(BasicBlock<'ctx>, IntValue<'ctx>)> {
        let retry = self.ctx.append_basic_block(func, "cas.retry");
        self.builder.build_unconditional_branch(retry)?;
        self.builder.position_at_end(retry);
        let load = self.builder.build_load(self.bits_type(elem), p, "old")?;
        if let Some(inst) = load.as_instruction_value() {
            inst.set_alignment(elem.bytes() as u32)
                .map_err(|e| CodegenError::Internal(format!("atomic load: {e}")))?;
            inst.set_atomic_ordering(AtomicOrdering::Monotonic)
                .map_err(|e| CodegenError::Internal(format!("atomic load: {e}")))?;
        }
        Ok((retry, load.into_int_value()))
    }

    /// `cmpxchg p, expected, desired` (relaxed), then on to `swapped` if
    /// it stored, else to `failed`.
    pub(crate) fn cmpxchg_branch(
        &self,
        p: PointerValue<'ctx>,
        expected: IntValue<'ctx>,
        desired: IntValue<'ctx>,
        swapped: BasicBlock<'ctx>,
        failed: BasicBlock<'ctx>,
    ) -> Res<()> {
        let pair = self.builder.build_cmpxchg(
            p,
            expected,
            desired,
            AtomicOrdering::Monotonic,
            AtomicOrdering::Monotonic,
        )?;
        let stored = self
            .builder
            .build_extract_value(pair, 1, "swapped")?
            .into_int_value();
        self.builder
            .build_conditional_branch(stored, swapped, failed)?;
        Ok(())
    }
}
