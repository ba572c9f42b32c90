//! Branch-free guarded stores: `if c then write a[i] = v` (nothing else in
//! either arm) inside a loop function as one AVX-512 masked store, where
//! the processor has AVX-512 (`CpuBackend::guarded_write`); elsewhere the
//! branch stays. Loopy statements in, LLVM IR out (`masked_write`), and the
//! optimised module's masks rewritten as bits (`masks_from_bits`, the
//! `masks` pass).
//!
//! Why: a filter's compaction loop writes each kept element at the running
//! count, and on random input its branch mispredicts about every other
//! element. A vector store of `v` in lane 0 under the mask `<c, 0, 0, ...>`
//! writes the element exactly when `c` holds and touches nothing else:
//! masked-off lanes neither write nor fault, so the lanes past `a[i]` may
//! lie beyond the array, and `i` itself may be out of range when `c` is
//! false (the address is computed without `inbounds`). Only 4- and 8-byte
//! elements: AVX-512F masks those (bytes and halves need AVX-512BW). Not
//! with `--count-traffic`, whose count of the write must stay under `c`.
//! AMD's AVX2 `vmaskmovps` store is microcoded and slow, so processors
//! without AVX-512 keep the branch.
//!
//! Measured on the Intel Xeon (AVX-512, 2 threads, 50M random `f32`, half
//! kept): filter took 102.6 ms with the branch, 20.5 with masked stores
//! (C with a branch: 112).

use crate::codegen::emit::{Frame, Gen, Res};
use crate::codegen::CodegenError;
use crate::loopy::ir::Stmt;
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module;
use inkwell::types::{BasicTypeEnum, VectorType};
use inkwell::values::{
    AnyValue, BasicValueEnum, InstructionOpcode, InstructionValue, IntValue, Operand,
};

/// Bytes of the vector a guarded store writes lane 0 of.
const MASKED_VECTOR_BYTES: u32 = 16;

impl<'ctx> Gen<'ctx, '_> {
    /// `stmt` under `cond` as one masked store when it is a write that may
    /// be one (see the module comment); whether it was.
    pub(super) fn masked_write(
        &mut self,
        fr: &mut Frame<'ctx>,
        cond: IntValue<'ctx>,
        stmt: &Stmt,
    ) -> Res<bool> {
        let Stmt::Write {
            array,
            index,
            value,
        } = stmt
        else {
            return Ok(false);
        };
        if self.mode.nest_depth == 0
            || self.host_arrays.contains(array)
            || self.mode.atomic_bins.contains(array)
            || self.counts_traffic()
        {
            return Ok(false);
        }
        let (ptr, elem, shape) = self.array(fr, *array)?;
        let bytes = elem.bytes() as u32;
        if bytes != 4 && bytes != 8 {
            return Ok(false);
        }
        let index = self.checked_index(fr, &shape, index, None)?;
        let mut linear = self.const_i64(0);
        for (i, dim) in index.iter().zip(&shape) {
            let scaled = self.builder.build_int_mul(linear, *dim, "")?;
            linear = self.builder.build_int_add(scaled, *i, "")?;
        }
        let row = self.product(shape.get(index.len()..).unwrap_or_default())?;
        let linear = self.builder.build_int_mul(linear, row, "")?;
        let elem_ty = self.mem_type(elem);
        // Safety: not `inbounds`; a plain GEP of any index is defined.
        let p = unsafe { self.builder.build_gep(elem_ty, ptr, &[linear], "")? };
        let (v, t) = self.scalar(fr, value)?;
        let v = self.store_to_mem(v, t)?;
        let lanes = MASKED_VECTOR_BYTES / bytes;
        let vec_ty = match elem_ty {
            BasicTypeEnum::FloatType(f) => f.vec_type(lanes),
            BasicTypeEnum::IntType(i) => i.vec_type(lanes),
            _ => return Ok(false),
        };
        // Lanes past 0 are never written: poison in them lets LLVM store
        // the register `v` is in. The mask as the bits of `zext c` (lanes
        // past 0 known false) takes one `kmov`, where an insert into a
        // zero mask took two shifts more.
        let bits_ty = std::num::NonZeroU32::new(lanes)
            .and_then(|w| self.ctx.custom_width_int_type(w).ok())
            .ok_or_else(|| CodegenError::Internal("no mask integer type".into()))?;
        let b = &self.builder;
        let data = b.build_insert_element(vec_ty.get_poison(), v, self.const_i64(0), "")?;
        let bits = b.build_int_z_extend(cond, bits_ty, "")?;
        let mask_ty = self.ctx.bool_type().vec_type(lanes);
        let mask = b.build_bit_cast(bits, mask_ty, "")?;
        let store = Intrinsic::find("llvm.masked.store")
            .and_then(|f| f.get_declaration(&self.module, &[vec_ty.into(), self.ptr().into()]))
            .ok_or_else(|| CodegenError::Internal("no llvm.masked.store".into()))?;
        let align = self.ctx.i32_type().const_int(bytes as u64, false);
        b.build_call(
            store,
            &[data.into(), p.into(), align.into(), mask.into()],
            "",
        )?;
        Ok(true)
    }
}

/// After LLVM's optimisation, the masks of the guarded stores as the bits
/// of `zext c`: `insertelement <N x i1> <poison, false, ...>, i1 %c, 0`,
/// which LLVM's InstCombine makes of the bitcast `masked_write` builds,
/// becomes `bitcast (zext i1 %c to iN) to <N x i1>` again. The first costs
/// a `kmov` and two mask shifts per store (the shifts clear the lanes past
/// 0), the second a `kmov`; all three go to one port.
pub fn masks_from_bits(context: &Context, module: &Module) -> Result<(), CodegenError> {
    let builder = context.create_builder();
    for f in module.get_functions() {
        for block in f.get_basic_blocks() {
            let mut inst = block.get_first_instruction();
            while let Some(i) = inst {
                inst = i.get_next_instruction();
                if let Some((cond, mask_ty)) = lane0_mask(i) {
                    builder.position_before(&i);
                    let lanes = mask_ty.get_size();
                    let bits_ty = std::num::NonZeroU32::new(lanes)
                        .and_then(|w| context.custom_width_int_type(w).ok())
                        .ok_or_else(|| CodegenError::Internal("no mask integer type".into()))?;
                    let bits = builder.build_int_z_extend(cond, bits_ty, "")?;
                    let mask = builder.build_bit_cast(bits, mask_ty, "")?;
                    i.set_operand(3, mask);
                }
            }
        }
    }
    Ok(())
}

/// The condition and mask type of a masked store `i` whose mask is
/// `insertelement <false, ...>, %c, 0` (every lane past 0 false).
fn lane0_mask<'ctx>(i: InstructionValue<'ctx>) -> Option<(IntValue<'ctx>, VectorType<'ctx>)> {
    if i.get_opcode() != InstructionOpcode::Call || i.get_num_operands() != 5 {
        return None;
    }
    let value = |inst: InstructionValue<'ctx>, k: u32| match inst.get_operand(k)? {
        Operand::Value(v) => Some(v),
        Operand::Block(_) => None,
    };
    let BasicValueEnum::PointerValue(callee) = value(i, 4)? else {
        return None;
    };
    if !callee
        .get_name()
        .to_str()
        .is_ok_and(|n| n.starts_with("llvm.masked.store."))
    {
        return None;
    }
    let BasicValueEnum::VectorValue(mask) = value(i, 3)? else {
        return None;
    };
    let insert = mask.as_instruction()?;
    if insert.get_opcode() != InstructionOpcode::InsertElement {
        return None;
    }
    let (
        BasicValueEnum::VectorValue(rest),
        BasicValueEnum::IntValue(cond),
        BasicValueEnum::IntValue(lane),
    ) = (value(insert, 0)?, value(insert, 1)?, value(insert, 2)?)
    else {
        return None;
    };
    // A constant vector of `i1` with a poison lane is no `ConstantData`
    // whose elements LLVM's C API hands out: its text is read instead.
    let text = rest.print_to_string().to_string();
    let elements = text.split_once("> <").map(|(_, e)| e.trim_end_matches('>'));
    let past0_false =
        rest.is_const() && elements.is_some_and(|e| e.split(", ").skip(1).all(|x| x == "i1 false"));
    (lane.get_zero_extended_constant() == Some(0) && past0_false).then(|| (cond, rest.get_type()))
}
