//! Cells: carried values in device buffers, one 8-byte cell a field
//! (`bool` as a byte), as kernels pass final values and partial results
//! to host code and to each other.

use crate::codegen::emit::{Gen, Res, Val};
use crate::codegen::CodegenError;
use crate::core::ir::Type;
use inkwell::values::{IntValue, PointerValue};

impl<'ctx> Gen<'ctx, '_> {
    pub(super) fn cell_ptr(
        &self,
        base: PointerValue<'ctx>,
        k: IntValue<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        // Safety: the buffers have a cell per field (and per thread).
        Ok(unsafe {
            self.builder
                .build_in_bounds_gep(self.i64(), base, &[k], "")?
        })
    }

    /// Stores the fields of `vals` in consecutive 8-byte cells from cell
    /// `first` (`bool` as a byte).
    pub(super) fn store_cells(
        &self,
        base: PointerValue<'ctx>,
        first: IntValue<'ctx>,
        vals: &[Val<'ctx>],
    ) -> Res<()> {
        self.store_cells_with(base, first, vals, false)
    }

    /// `store_cells`, volatile where other blocks read the cells while
    /// this kernel runs (no stale L1 line on either side).
    pub(super) fn store_cells_with(
        &self,
        base: PointerValue<'ctx>,
        first: IntValue<'ctx>,
        vals: &[Val<'ctx>],
        volatile: bool,
    ) -> Res<()> {
        let mut k = 0i64;
        for v in vals {
            for f in self.fields(v) {
                let at = self.builder.build_int_add(first, self.const_i64(k), "")?;
                let p = self.cell_ptr(base, at)?;
                let f = self.to_abi(f, self.abi_type(f.get_type()))?;
                let store = self.builder.build_store(p, f)?;
                if volatile {
                    store
                        .set_volatile(true)
                        .map_err(|e| CodegenError::Internal(format!("volatile store: {e}")))?;
                }
                k += 1;
            }
        }
        Ok(())
    }

    pub(super) fn read_cells(
        &self,
        base: PointerValue<'ctx>,
        first: IntValue<'ctx>,
        types: &[Type],
    ) -> Res<Vec<Val<'ctx>>> {
        self.read_cells_with(base, first, types, false)
    }

    pub(super) fn read_cells_with(
        &self,
        base: PointerValue<'ctx>,
        first: IntValue<'ctx>,
        types: &[Type],
        volatile: bool,
    ) -> Res<Vec<Val<'ctx>>> {
        let mut k = 0i64;
        let mut out = Vec::new();
        for t in types {
            let mut fields = Vec::new();
            for ft in self.field_types(*t) {
                let at = self.builder.build_int_add(first, self.const_i64(k), "")?;
                let p = self.cell_ptr(base, at)?;
                let v = self.builder.build_load(self.abi_type(ft), p, "")?;
                if volatile {
                    if let Some(inst) = inkwell::values::BasicValue::as_instruction_value(&v) {
                        inst.set_volatile(true)
                            .map_err(|e| CodegenError::Internal(format!("volatile load: {e}")))?;
                    }
                }
                fields.push(self.abi_to_reg(v, ft)?);
                k += 1;
            }
            out.push(self.val_of_fields(*t, &fields)?);
        }
        Ok(out)
    }

    /// Host side: the final carried values copied into `slot`.
    pub(super) fn load_cells(
        &self,
        slot: PointerValue<'ctx>,
        types: &[Type],
    ) -> Res<Vec<Val<'ctx>>> {
        self.read_cells(slot, self.const_i64(0), types)
    }
}
