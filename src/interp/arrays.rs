//! The array operations that are not SOACs: slicing, `with` updates,
//! transposition, flattening, reversal, rotation and concatenation.
//!
//! A result that is a contiguous part of its operand (`a[i:j]`, a row,
//! `flatten`) is a view of the same storage; everything else is gathered
//! into new storage, one strided run at a time.

use super::{first_difference, Arr, Interp, RunError, Val};
use crate::core::ir::{range_form, range_message, Atom, DimSlice, SrcLoc, Stm, VarId};
use crate::runtime::value::ArrayData;
use crate::types::Const;

/// The elements at `base + sum(t_k * step_k)` for every `t_k < count_k`
/// (the last dimension varying fastest) of `src`; `None` if one is outside it.
fn gather(src: &ArrayData, base: i64, dims: &[(usize, i64)]) -> Option<ArrayData> {
    let total = dims
        .iter()
        .try_fold(1usize, |acc, &(n, _)| acc.checked_mul(n))?;
    let mut out = ArrayData::with_capacity(src.elem(), total);
    if total == 0 {
        return Some(out);
    }
    // Dimensions of one element contribute nothing; a dimension whose step
    // spans exactly the next one merges with it into one longer run.
    let mut merged: Vec<(usize, i64)> = Vec::with_capacity(dims.len());
    for &(n, step) in dims.iter().filter(|(n, _)| *n != 1) {
        merged.push((n, step));
        while merged.len() >= 2 {
            let (inner_n, inner_step) = merged[merged.len() - 1];
            let (outer_n, outer_step) = merged[merged.len() - 2];
            if outer_step != inner_n as i64 * inner_step {
                break;
            }
            merged.truncate(merged.len() - 2);
            merged.push((outer_n * inner_n, inner_step));
        }
    }
    fn go(out: &mut ArrayData, src: &ArrayData, base: i64, dims: &[(usize, i64)]) -> bool {
        match dims {
            [] => out.extend_strided(src, base, 1, 1),
            [(n, step)] => out.extend_strided(src, base, *n, *step),
            [(n, step), rest @ ..] => (0..*n as i64).all(|t| go(out, src, base + t * step, rest)),
        }
    }
    go(&mut out, src, base, &merged).then_some(out)
}

/// Elements per step of each dimension of a row-major array of `dims`.
fn strides(dims: &[usize]) -> Vec<i64> {
    let mut out = vec![1i64; dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        out[k] = out[k + 1] * dims[k + 1] as i64;
    }
    out
}

impl Interp<'_> {
    /// The size of `iota n`: Futhark's `iota n` is the range `0..1..<n`,
    /// so a negative `n` is that invalid range (its prelude's definition).
    pub(super) fn iota_size(&self, n: &Atom, loc: SrcLoc) -> Result<usize, RunError> {
        let value = self.int(n)?;
        if value < 0 && !self.trial() {
            let what = range_message(0, 1, value, range_form(0, true));
            return Err(RunError::Program(format!("{what} at {}", self.loc(loc))));
        }
        self.size(n, loc)
    }

    fn out_of_bounds(&self, index: &str, len: usize, loc: SrcLoc) -> RunError {
        RunError::Program(format!(
            "index {index} out of bounds for array of length {len} at {}",
            self.loc(loc)
        ))
    }

    /// A new array of `shape` gathered from `a`'s storage (see `gather`).
    fn gathered(
        &self,
        a: &Arr,
        base: i64,
        dims: &[(usize, i64)],
        shape: Vec<usize>,
        loc: SrcLoc,
    ) -> Result<Val, RunError> {
        let data = gather(&a.data, base, dims)
            .ok_or_else(|| self.internal("array view out of its storage", loc))?;
        Ok(Val::Array(Arr::whole(data, shape)))
    }

    fn array_of_rank(&self, id: VarId, min_rank: usize, loc: SrcLoc) -> Result<Arr, RunError> {
        let a = self.array(id)?;
        if a.dims().len() < min_rank {
            return Err(self.internal(&format!("an array of rank below {min_rank}"), loc));
        }
        Ok(a.clone())
    }

    /// `a[d0, d1, ...]`. A range `i:j:s` has `(j - i) / s` elements rounded
    /// away from zero; as in Futhark it is valid when empty, or when it runs
    /// in its stride's direction (`i <= j`, or `j <= i` for a negative
    /// stride) and its first and last element are in bounds. Errors read
    /// `index i:j:s out of bounds for array of length n`.
    pub(super) fn slice(
        &self,
        array: VarId,
        slices: &[DimSlice],
        loc: SrcLoc,
    ) -> Result<Val, RunError> {
        let a = self.array(array)?.clone();
        let dims = a.dims().to_vec();
        if slices.len() > dims.len() {
            return Err(self.internal("a slice of more dimensions than its array", loc));
        }
        let step = strides(&dims);
        let mut base = a.offset as i64;
        let mut runs: Vec<(usize, i64)> = Vec::with_capacity(dims.len());
        for (k, &len) in dims.iter().enumerate() {
            match slices.get(k) {
                Some(DimSlice::Index(ix)) => {
                    let i = self.int(ix)?;
                    if i < 0 || i as u64 >= len as u64 {
                        return Err(self.out_of_bounds(&i.to_string(), len, loc));
                    }
                    base += i * step[k];
                }
                Some(DimSlice::Range { start, end, stride }) => {
                    let (i, j, s) = (self.int(start)?, self.int(end)?, self.int(stride)?);
                    let n = match range_len(i, j, s, len) {
                        Some(n) => n,
                        // A trial run (see `soacs`) only wants the shape.
                        None if self.trial() && s != 0 => {
                            let count = slice_count(i, j, s).clamp(0, 1 << 28) as usize;
                            let mut shape: Vec<usize> = runs.iter().map(|&(n, _)| n).collect();
                            shape.push(count);
                            shape.extend_from_slice(dims.get(k + 1..).unwrap_or(&[]));
                            let zero = Const::zero(a.data.elem());
                            let n = shape.iter().product();
                            return Ok(Val::Array(Arr::whole(ArrayData::filled(zero, n), shape)));
                        }
                        None => return Err(self.out_of_bounds(&format!("{i}:{j}:{s}"), len, loc)),
                    };
                    if n > 0 {
                        base += i * step[k];
                    }
                    // With two or more elements `|s| < len`: no overflow.
                    runs.push((n, if n > 1 { s * step[k] } else { 0 }));
                }
                None => runs.push((len, step[k])),
            }
        }
        let shape: Vec<usize> = runs.iter().map(|&(n, _)| n).collect();
        if runs.is_empty() {
            return a
                .data
                .get(base as usize)
                .map(Val::Scalar)
                .ok_or_else(|| self.internal("array view out of its storage", loc));
        }
        if shape.contains(&0) {
            let data = ArrayData::with_capacity(a.data.elem(), 0);
            return Ok(Val::Array(Arr::whole(data, shape)));
        }
        // Row-major with unit innermost step: a view of the same storage.
        let contiguous = strides(&shape)
            .iter()
            .zip(&runs)
            .all(|(want, &(n, s))| n == 1 || *want == s);
        if contiguous {
            return Ok(Val::Array(Arr {
                offset: base as usize,
                ..a.reshaped(shape)
            }));
        }
        self.gathered(&a, base, &runs, shape, loc)
    }

    /// `a with [indices] = value`: a copy, or the same storage when this
    /// statement consumes the only reference to it.
    pub(super) fn update(
        &mut self,
        stm: &Stm,
        array: VarId,
        indices: &[Atom],
        value: &Atom,
    ) -> Result<Val, RunError> {
        let loc = stm.loc;
        let value = self.atom(value)?;
        let ix: Vec<i64> = indices
            .iter()
            .map(|i| self.int(i))
            .collect::<Result<_, _>>()?;
        let dims = self.array(array)?.dims().to_vec();
        if ix.len() > dims.len() || ix.is_empty() {
            return Err(self.internal("an update with a wrong number of indices", loc));
        }
        let step = strides(&dims);
        let mut at = 0usize;
        for (k, &i) in ix.iter().enumerate() {
            if i < 0 || i as u64 >= dims[k] as u64 {
                return Err(self.out_of_bounds(&i.to_string(), dims[k], loc));
            }
            at += i as usize * step[k] as usize;
        }
        let row_dims = &dims[ix.len()..];
        let a = self.consume_array(stm, array)?;
        let mut data = a.into_data();
        let ok = match &value {
            Val::Scalar(c) if row_dims.is_empty() => data.set(at, *c),
            Val::Array(v) if v.dims() == row_dims => {
                data.write_from(at, &v.data, v.offset, v.elems())
            }
            Val::Array(v) if v.dims().len() == row_dims.len() => {
                let (x, y) = first_difference(row_dims, v.dims());
                return Err(self.size_mismatch(x, y, loc));
            }
            _ => false,
        };
        if !ok {
            return Err(self.internal("an update with a value of another type", loc));
        }
        Ok(Val::Array(Arr::whole(data, dims)))
    }

    pub(super) fn transpose(&self, array: VarId, loc: SrcLoc) -> Result<Val, RunError> {
        let a = self.array_of_rank(array, 2, loc)?;
        let dims = a.dims();
        let (n, m) = (dims[0], dims[1]);
        let inner: usize = dims[2..].iter().product();
        let mut shape = vec![m, n];
        shape.extend_from_slice(&dims[2..]);
        let runs = [(m, inner as i64), (n, (m * inner) as i64), (inner, 1)];
        self.gathered(&a, a.offset as i64, &runs, shape, loc)
    }

    pub(super) fn flatten(&self, array: VarId, loc: SrcLoc) -> Result<Val, RunError> {
        let a = self.array_of_rank(array, 2, loc)?;
        let dims = a.dims();
        let mut shape = vec![dims[0] * dims[1]];
        shape.extend_from_slice(&dims[2..]);
        Ok(Val::Array(a.reshaped(shape)))
    }

    pub(super) fn unflatten(
        &self,
        array: VarId,
        rows: &Atom,
        cols: &Atom,
        loc: SrcLoc,
    ) -> Result<Val, RunError> {
        let a = self.array_of_rank(array, 1, loc)?;
        let (r, c) = (self.size(rows, loc)? as i64, self.size(cols, loc)? as i64);
        let n = a.outer();
        let product = (r as i128) * (c as i128);
        if r < 0 || c < 0 || product != n as i128 {
            let shown = i64::try_from(product).unwrap_or(i64::MAX);
            return Err(self.size_mismatch(shown, n as i64, loc));
        }
        let mut shape = vec![r as usize, c as usize];
        shape.extend_from_slice(&a.dims()[1..]);
        Ok(Val::Array(a.reshaped(shape)))
    }

    pub(super) fn reverse(&self, array: VarId, loc: SrcLoc) -> Result<Val, RunError> {
        let a = self.array_of_rank(array, 1, loc)?;
        let (n, row) = (a.outer(), a.row_elems());
        let base = a.offset as i64 + (n as i64 - 1) * row as i64;
        let runs = [(n, -(row as i64)), (row, 1)];
        self.gathered(&a, base, &runs, a.dims().to_vec(), loc)
    }

    /// Element `i` of the result is `a[(i + amount) mod n]`.
    pub(super) fn rotate(&self, array: VarId, amount: &Atom, loc: SrcLoc) -> Result<Val, RunError> {
        let a = self.array_of_rank(array, 1, loc)?;
        let (n, row) = (a.outer(), a.row_elems());
        if n == 0 {
            return Ok(Val::Array(a));
        }
        let r = self.int(amount)?.rem_euclid(n as i64) as usize;
        let mut data = ArrayData::with_capacity(a.data.elem(), a.elems());
        let ok = data.extend_from(&a.data, a.offset + r * row, (n - r) * row)
            && data.extend_from(&a.data, a.offset, r * row);
        if !ok {
            return Err(self.internal("array view out of its storage", loc));
        }
        Ok(Val::Array(Arr::whole(data, a.dims().to_vec())))
    }

    /// Along the outer dimension. Rows must agree in shape; an operand
    /// without rows is exempt (its row shape may be unknown: a `map` over
    /// nothing cannot tell how long the rows it did not make would be).
    pub(super) fn concat(&self, arrays: &[VarId], loc: SrcLoc) -> Result<Val, RunError> {
        let parts: Vec<Arr> = arrays
            .iter()
            .map(|v| self.array_of_rank(*v, 1, loc))
            .collect::<Result<_, _>>()?;
        let Some(first) = parts.first() else {
            return Err(self.internal("a concatenation of nothing", loc));
        };
        let reference = parts.iter().find(|p| p.outer() > 0).unwrap_or(first);
        let row_dims = reference.dims()[1..].to_vec();
        let mut rows = 0usize;
        let mut data = ArrayData::with_capacity(first.data.elem(), 0);
        for p in &parts {
            if p.dims().len() != row_dims.len() + 1 {
                return Err(self.internal("a concatenation of different ranks", loc));
            }
            if p.outer() > 0 && p.dims()[1..] != row_dims[..] {
                let (x, y) = first_difference(&row_dims, &p.dims()[1..]);
                return Err(self.size_mismatch(x, y, loc));
            }
            rows += p.outer();
            if !data.extend_from(&p.data, p.offset, p.elems()) {
                return Err(self.internal("a concatenation of different types", loc));
            }
        }
        let mut shape = vec![rows];
        shape.extend(row_dims);
        Ok(Val::Array(Arr::whole(data, shape)))
    }
}

/// The number of elements of `i:j:s` (`s` not 0), negative when `j` lies
/// before `i` in the stride's direction.
fn slice_count(i: i64, j: i64, s: i64) -> i128 {
    let (i, j, s) = (i as i128, j as i128, s as i128);
    // Rust's `/` truncates: this rounds the quotient away from zero.
    (j - i + s - s.signum()) / s
}

/// The number of elements of `i:j:s` on a dimension of `len`, or `None` if
/// the range is invalid there (see `Interp::slice`).
fn range_len(i: i64, j: i64, s: i64, len: usize) -> Option<usize> {
    if s == 0 {
        return None;
    }
    let n = slice_count(i, j, s);
    let (i, j, s, len) = (i as i128, j as i128, s as i128, len as i128);
    if n == 0 {
        return Some(0);
    }
    let ordered = if s > 0 { i <= j } else { j <= i };
    let last = i + (n - 1) * s;
    let inside = |x: i128| 0 <= x && x < len;
    (n > 0 && ordered && inside(i) && inside(last)).then_some(n as usize)
}
