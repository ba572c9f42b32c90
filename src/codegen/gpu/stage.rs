//! A look-back scan's input tiles staged through shared memory: the rank-1
//! arrays from outside the nest that its body reads at exactly the
//! iteration index (`stageable`). Per tile, the block loads each such
//! array's `B * c` elements coalesced (thread `t` loads elements `start +
//! t`, `start + t + B`, ...) into its region of shared memory, then a
//! barrier; both passes of the tile (totals and body) read them there
//! (`staged_read`), so global memory is read once per element, in
//! coalesced loads, whatever the thread's `c` contiguous items are.
//!
//! Thread `t` reads items `t * c + j`, `c` apart: with `c * e` an even
//! number of 4-byte words the lanes of a warp would meet in few banks
//! (`c = 8` of an `f32`, or `c = 4` of an `i64`: stride 8 words, 8 lanes a
//! bank). So each region is padded by one element after every 128 bytes
//! (element `k` at byte `k e + floor(k e / 128) e`): a warp's 32 reads at
//! such a stride then fall in 32 different banks (`tile_offset`).
//!
//! Only elements below the width and the array's length are loaded; a read
//! keeps its bounds check, so a read outside the array fails exactly as it
//! would from global memory, and a read that passes it finds its element
//! staged. Reads at another index (a neighbour, a row, a gather) stay
//! global reads.

use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, VarId};
use crate::loopy::ir::{LoopNest, Stmt};
use crate::types::ScalarType;
use inkwell::values::{IntValue, PointerValue};
use std::collections::HashSet;

/// Bytes of staged elements a thread holds at most (its items times the
/// staged arrays' element bytes): 32 KiB for a block of 1024 threads,
/// beside the scan's own cells, under the 48 KiB a block has.
const STAGE_BYTES: usize = 32;

/// The arrays a nest stages, with their element types.
pub(super) type StagedArrays = Vec<(VarId, ScalarType)>;

/// A staged array while a tile runs: a read of `array` at `index` takes
/// element `index - start` of `tile` (shared memory).
#[derive(Clone, Copy)]
pub(crate) struct Staged<'ctx> {
    array: VarId,
    index: VarId,
    tile: PointerValue<'ctx>,
    start: IntValue<'ctx>,
}

/// The arrays from outside `nest` that its body reads, at any depth, with
/// the nest's index as their one index, and that nothing in the nest
/// writes (so a tile loaded before its iterations holds what they read).
fn stageable(nest: &LoopNest) -> Vec<VarId> {
    let free: HashSet<VarId> = nest.free_vars().into_iter().collect();
    let mut written: HashSet<VarId> = nest.scatters.iter().copied().collect();
    written.extend(
        nest.compactions
            .iter()
            .flat_map(|c| c.outputs.iter().copied()),
    );
    written.extend(nest.hists.iter().flat_map(|h| h.bins.iter().copied()));
    let mut read = Vec::new();
    let at_index = [Atom::Var(nest.index.id)];
    crate::loopy::chunk::for_each_stmt(&nest.body, &mut |s| match s {
        Stmt::Read { array, index, .. }
            if index.as_slice() == at_index && free.contains(array) && !read.contains(array) =>
        {
            read.push(*array);
        }
        Stmt::Write { array, .. } | Stmt::Copy { array, .. } | Stmt::InPlace { array, .. } => {
            written.insert(*array);
        }
        _ => {}
    });
    read.retain(|a| !written.contains(a));
    read
}

impl<'ctx> Gen<'ctx, '_> {
    /// The arrays of `nest` a scan stages (rank 1 in `fr`, while their
    /// element bytes per item fit `STAGE_BYTES`) with their element types,
    /// and the items a thread takes of a tile (at most `most`, fewer where
    /// the staged bytes need it). Host code and the kernel compute the
    /// same.
    pub(super) fn staging(
        &self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
        most: i64,
    ) -> Res<(StagedArrays, i64)> {
        let mut staged = Vec::new();
        let mut bytes = 0;
        for a in stageable(nest) {
            if let Val::Array { elem, shape, .. } = self.val(fr, &Atom::Var(a))? {
                if shape.len() == 1 && bytes + elem.bytes() <= STAGE_BYTES {
                    bytes += elem.bytes();
                    staged.push((a, elem));
                }
            }
        }
        let items = STAGE_BYTES
            .checked_div(bytes)
            .map_or(most, |fit| most.min(fit as i64));
        Ok((staged, items))
    }

    /// `ceil(a / d)` for positive `d`.
    pub(super) fn ceil_div(&self, a: IntValue<'ctx>, d: IntValue<'ctx>) -> Res<IntValue<'ctx>> {
        let up = self.builder.build_int_add(a, d, "")?;
        let up = self.builder.build_int_sub(up, self.const_i64(1), "")?;
        Ok(self.builder.build_int_signed_div(up, d, "")?)
    }

    /// Bytes of shared memory a thread's staged elements take at most,
    /// padding included (a region of `B * items` elements of `e` bytes
    /// takes `items e` a thread, its padding `items e e / 128` at most and
    /// its rounding to 8 bytes less than 1 a thread, `B` being at least 32).
    pub(super) fn staged_bytes(staged: &[(VarId, ScalarType)], items: i64) -> i64 {
        staged
            .iter()
            .map(|(_, e)| {
                let bytes = items * e.bytes() as i64;
                bytes + (bytes + 15) / 16 + 1
            })
            .sum()
    }

    /// Byte offset of element `k` (of `e` bytes, a power of two) in a
    /// padded region: `(k + (k >> (7 - log2 e))) << log2 e`, in 32 bits
    /// (shared memory is 48 KiB), so that the addressing takes few
    /// registers.
    fn tile_offset(&self, k: IntValue<'ctx>, e: usize) -> Res<IntValue<'ctx>> {
        let i32t = self.ctx.i32_type();
        let log = e.trailing_zeros() as u64;
        let k = self.builder.build_int_truncate(k, i32t, "")?;
        let rows = self
            .builder
            .build_right_shift(k, i32t.const_int(7 - log, false), false, "")?;
        let padded = self.builder.build_int_nuw_add(k, rows, "")?;
        let off = self
            .builder
            .build_left_shift(padded, i32t.const_int(log, false), "")?;
        Ok(self.builder.build_int_z_extend(off, self.i64(), "")?)
    }

    /// The address of element `k` of the padded region at `region`.
    fn tile_elem(
        &self,
        region: PointerValue<'ctx>,
        k: IntValue<'ctx>,
        e: usize,
    ) -> Res<PointerValue<'ctx>> {
        let off = self.tile_offset(k, e)?;
        // Safety: `k` is below the region's length, which host code sized
        // with its padding.
        Ok(unsafe {
            self.builder
                .build_in_bounds_gep(self.ctx.i8_type(), region, &[off], "")?
        })
    }

    /// Each staged array's region of the block's shared memory from `at`
    /// (bytes): `b * per` elements.
    pub(super) fn stage_regions(
        &self,
        shared: PointerValue<'ctx>,
        at: usize,
        staged: &[(VarId, ScalarType)],
        tile_len: IntValue<'ctx>,
    ) -> Res<Vec<PointerValue<'ctx>>> {
        let mut off = self.const_i64(at as i64);
        let mut out = Vec::new();
        for (_, elem) in staged {
            // Safety: host code sized the shared memory for these regions.
            let p = unsafe {
                self.builder
                    .build_in_bounds_gep(self.ctx.i8_type(), shared, &[off], "tile")?
            };
            out.push(p);
            // The padded length, rounded to 8 bytes for the next region.
            let bytes = self.tile_offset(tile_len, elem.bytes())?;
            let bytes = self.builder.build_int_add(bytes, self.const_i64(7), "")?;
            let bytes = self.builder.build_and(bytes, self.const_i64(-8), "")?;
            off = self.builder.build_int_add(off, bytes, "")?;
        }
        Ok(out)
    }

    /// Loads a tile of every staged array, `[start, start + tile_len)`
    /// cut at the width and the array's length, coalesced, into its
    /// region; then a barrier. Reads in `nest` at its index take the tile
    /// until `unstage`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn stage_tile(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        staged: &[(VarId, ScalarType)],
        regions: &[PointerValue<'ctx>],
        start: IntValue<'ctx>,
        tile_len: IntValue<'ctx>,
        width: IntValue<'ctx>,
    ) -> Res<()> {
        let tid = self.sreg("tid.x")?;
        let b = self.sreg("ntid.x")?;
        let mut tiles = Vec::new();
        for ((a, elem), region) in staged.iter().zip(regions) {
            let (ptr, _, shape) = self.array(fr, *a)?;
            let end = self.min(width, shape[0])?;
            let left = self.builder.build_int_sub(end, start, "")?;
            let count = self.min(left, tile_len)?;
            let ty = self.mem_type(*elem);
            let (region, bytes) = (*region, elem.bytes());
            self.kernel_loop(fr, tid, count, b, &mut |gen, _, k| {
                let j = gen.builder.build_int_add(start, k, "")?;
                // Safety: j is below the array's length.
                let from = unsafe { gen.builder.build_in_bounds_gep(ty, ptr, &[j], "")? };
                let v = gen.builder.build_load(ty, from, "")?;
                let to = gen.tile_elem(region, k, bytes)?;
                gen.announce_bytes(to, bytes, true)?;
                gen.builder.build_store(to, v)?;
                Ok(())
            })?;
            tiles.push(Staged {
                array: *a,
                index: nest.index.id,
                tile: region,
                start,
            });
        }
        self.barrier()?;
        if let Some(d) = self.device.as_mut() {
            d.staged = tiles;
        }
        Ok(())
    }

    /// Reads of the staged arrays go to global memory again.
    pub(super) fn unstage(&mut self) {
        if let Some(d) = self.device.as_mut() {
            d.staged.clear();
        }
    }

    /// A read of a staged array at the nest's index, from the tile (its
    /// bounds check as from global memory). Returns false for other
    /// statements.
    pub(crate) fn staged_read(&mut self, fr: &mut Frame<'ctx>, stmt: &Stmt) -> Res<bool> {
        let Stmt::Read {
            var,
            array,
            index,
            check,
        } = stmt
        else {
            return Ok(false);
        };
        let [Atom::Var(ix)] = index.as_slice() else {
            return Ok(false);
        };
        let Some(s) = self.device.as_ref().and_then(|d| {
            d.staged
                .iter()
                .find(|s| s.array == *array && s.index == *ix)
                .copied()
        }) else {
            return Ok(false);
        };
        let (_, elem, shape) = self.array(fr, *array)?;
        let check = check.filter(|_| !self.mode.unchecked.contains(&var.id));
        let idx = self.checked_index(fr, &shape, index, check)?;
        let i = idx
            .first()
            .copied()
            .ok_or_else(|| CodegenError::Internal("a staged read without its index".into()))?;
        let k = self.builder.build_int_sub(i, s.start, "")?;
        let ty = self.mem_type(elem);
        // The index is in the tile (below the width and the length).
        let p = self.tile_elem(s.tile, k, elem.bytes())?;
        self.announce_bytes(p, elem.bytes(), false)?;
        let v = self.builder.build_load(ty, p, "")?;
        let v = self.load_from_mem(v, elem)?;
        fr.vals.insert(var.id, Val::Scalar(v, elem));
        Ok(true)
    }
}
