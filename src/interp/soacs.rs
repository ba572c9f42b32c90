//! The SOACs: sequential loops over the rows of their argument arrays, in
//! the order the language contract gives results (scan left to right,
//! scanr right to left, scatter's later writes winning), and in the
//! checking mode (`unspecified`) what they leave open.

use super::{first_difference, gather_rows, Arr, Builder, Interp, RunError, Val};
use crate::core::ir::{Atom, Lambda, Soac, SoacKind, SrcLoc, Stm, VarId};
use crate::runtime::value::ArrayData;
use crate::types::Const;

/// Statements a `map`'s trial run (see `trial_rows`) may execute: enough
/// for a row that maps a reduction over a few hundred elements per element
/// of a few hundred (100,000 gave up on 300 by 300 and made the rows empty,
/// random seed 1400136); a trial that runs out costs about a tenth of a
/// second.
const TRIAL_STEPS: u64 = 2_000_000;
/// Elements a reduction folds from the neutral element before combining
/// with the running total: compiled code does so where it sums a float
/// narrower than `f64` (`REDUCE_BLOCK` in `codegen::cpu::nest`); elsewhere
/// the blocks change no more than rounding.
const REDUCE_BLOCK: usize = 16384;

impl Interp<'_> {
    pub(super) fn soac(&mut self, soac: &Soac, stm: &Stm) -> Result<Vec<Val>, RunError> {
        let loc = stm.loc;
        let width = self.size(&soac.width, loc)?;
        let mut arrays: Vec<Arr> = soac
            .args
            .iter()
            .map(|v| self.array(*v).cloned())
            .collect::<Result<_, _>>()?;
        for a in &mut arrays {
            if a.outer() != width {
                if !self.trial() {
                    return Err(self.size_mismatch(width as i64, a.outer() as i64, loc));
                }
                // A trial run looks for shapes only: rows of zeros.
                let mut dims = a.dims().to_vec();
                dims[0] = width;
                let zero = Const::zero(a.data.elem());
                *a = Arr::whole(ArrayData::filled(zero, dims.iter().product()), dims);
            }
        }
        match &soac.kind {
            SoacKind::Map(lam) => self.map(lam, width, &arrays, loc),
            SoacKind::Reduce { op, neutral } => {
                // In blocks folded from the neutral element, then combined in
                // order, as compiled code does: a float sum stays accurate.
                let ne = self.atoms(neutral)?;
                let mut total: Option<Vec<Val>> = None;
                for start in (0..width).step_by(REDUCE_BLOCK) {
                    let end = (start + REDUCE_BLOCK).min(width);
                    let part = self.fold(op, ne.clone(), start..end, &arrays, loc, None)?;
                    total = Some(match total {
                        None => part,
                        Some(acc) => self.apply_op(op, acc, part)?,
                    });
                }
                self.check_fold("reduce", op, &ne, width, &arrays, false, loc)?;
                Ok(total.unwrap_or(ne))
            }
            SoacKind::Scan { op, neutral } => {
                let acc = self.atoms(neutral)?;
                let mut builders: Vec<Builder> =
                    op.ret.iter().map(|t| Builder::new(*t, width)).collect();
                self.fold(op, acc.clone(), 0..width, &arrays, loc, Some(&mut builders))?;
                self.check_fold("scan", op, &acc, width, &arrays, false, loc)?;
                Ok(builders
                    .into_iter()
                    .zip(&acc)
                    .map(|(b, ne)| b.finish_like(ne))
                    .collect())
            }
            SoacKind::ScanRight { op, neutral } => {
                self.scan_right(op, neutral, width, &arrays, loc)
            }
            SoacKind::Filter { pred } => {
                let (keep, _) = self.split(pred, width, &arrays, loc)?;
                Ok(arrays.iter().map(|a| gather_rows(a, &keep)).collect())
            }
            SoacKind::Partition { pred } => {
                let (keep, rest) = self.split(pred, width, &arrays, loc)?;
                let mut out: Vec<Val> = arrays.iter().map(|a| gather_rows(a, &keep)).collect();
                out.extend(arrays.iter().map(|a| gather_rows(a, &rest)));
                Ok(out)
            }
            SoacKind::Scatter { dest, .. } => self.scatter(stm, dest, width, &arrays),
            SoacKind::Hist {
                op,
                neutral,
                bins,
                dest,
            } => self.hist(op, neutral, bins, dest.as_deref(), width, &arrays, loc),
        }
    }

    /// In the checking mode, after a reduction or scan ran: its neutral
    /// element is neutral for the running values, from the left (`scanr`,
    /// `right_to_left`) or the right, and its operator associative on the
    /// elements.
    #[allow(clippy::too_many_arguments)]
    fn check_fold(
        &mut self,
        soac: &str,
        op: &Lambda,
        ne: &[Val],
        width: usize,
        arrays: &[Arr],
        right_to_left: bool,
        loc: SrcLoc,
    ) -> Result<(), RunError> {
        if !self.checking() {
            return Ok(());
        }
        let mut elems: Vec<Vec<Val>> = (0..width)
            .map(|i| arrays.iter().map(|a| a.row(i)).collect())
            .collect();
        if right_to_left {
            elems.reverse();
        }
        // The running values, recomputed (in one sequence, where a long
        // reduction ran in blocks: the same values but for rounding).
        let mut accs = vec![ne.to_vec()];
        for x in &elems {
            let last = accs.last().cloned().unwrap_or_default();
            let next = if right_to_left {
                self.try_op(op, x, &last)
            } else {
                self.try_op(op, &last, x)
            };
            match next {
                Some(next) => accs.push(next),
                None => break,
            }
        }
        self.check_neutral(soac, op, ne, accs.into_iter(), !right_to_left, loc)?;
        self.check_strict(soac, op, ne, elems.iter().cloned(), loc)?;
        if right_to_left {
            elems.reverse();
        }
        self.check_associative(soac, op, &elems, loc)
    }

    fn atoms(&self, atoms: &[Atom]) -> Result<Vec<Val>, RunError> {
        atoms.iter().map(|a| self.atom(a)).collect()
    }

    /// Runs `lam` on `args`, giving its results.
    fn apply(&mut self, lam: &Lambda, args: Vec<Val>) -> Result<Vec<Val>, RunError> {
        for (p, v) in lam.params.iter().zip(args) {
            self.set(p.id, v);
        }
        self.exec_body(&lam.body)?;
        lam.body.result.iter().map(|r| self.atom(r)).collect()
    }

    /// `scanr`: element `i` is `xs[i] op (... op (xs[n-1] op ne))`.
    fn scan_right(
        &mut self,
        op: &Lambda,
        neutral: &[Atom],
        width: usize,
        arrays: &[Arr],
        loc: SrcLoc,
    ) -> Result<Vec<Val>, RunError> {
        let k = arrays.len();
        self.check_arity(op, 2 * k, loc)?;
        let ne = self.atoms(neutral)?;
        if ne.len() != k || op.ret.len() != k {
            return Err(self.internal("neutral elements do not fit the operator", loc));
        }
        let mut acc = ne.clone();
        // Results from the right, reversed into place at the end.
        let mut rows: Vec<Vec<Val>> = Vec::with_capacity(width);
        for i in (0..width).rev() {
            let mut args: Vec<Val> = arrays.iter().map(|a| a.row(i)).collect();
            args.append(&mut acc);
            acc = self.apply(op, args)?;
            rows.push(acc.clone());
        }
        self.check_fold("scanr", op, &ne, width, arrays, true, loc)?;
        let mut builders: Vec<Builder> = op.ret.iter().map(|t| Builder::new(*t, width)).collect();
        for row in rows.iter().rev() {
            for (b, v) in builders.iter_mut().zip(row) {
                b.push(v, self, loc)?;
            }
        }
        Ok(builders
            .into_iter()
            .zip(&ne)
            .map(|(b, ne)| b.finish_like(ne))
            .collect())
    }

    /// The row indices where `pred` holds, and those where it does not.
    fn split(
        &mut self,
        pred: &Lambda,
        width: usize,
        arrays: &[Arr],
        loc: SrcLoc,
    ) -> Result<(Vec<usize>, Vec<usize>), RunError> {
        self.check_arity(pred, arrays.len(), loc)?;
        let (mut yes, mut no) = (Vec::new(), Vec::new());
        for i in 0..width {
            let args = arrays.iter().map(|a| a.row(i)).collect();
            match self.apply(pred, args)?.as_slice() {
                [Val::Scalar(Const::Bool(true))] => yes.push(i),
                [Val::Scalar(Const::Bool(false))] => no.push(i),
                _ => return Err(self.internal("a predicate that is not one bool", loc)),
            }
        }
        Ok((yes, no))
    }

    /// Args `[indices, values...]`: copies of `dest` (in place when the
    /// statement consumes them) with the values written at the indices in
    /// range; a later write to the same index wins.
    fn scatter(
        &mut self,
        stm: &Stm,
        dest: &[VarId],
        width: usize,
        arrays: &[Arr],
    ) -> Result<Vec<Val>, RunError> {
        let loc = stm.loc;
        let Some((indices, values)) = arrays.split_first() else {
            return Err(self.internal("scatter without indices", loc));
        };
        if values.len() != dest.len() {
            return Err(self.internal("scatter values do not fit its destinations", loc));
        }
        let targets: Vec<usize> = (0..width)
            .map(|i| indices.data.get(indices.offset + i))
            .map(|c| c.and_then(|c| c.as_i128()).unwrap_or(-1))
            .map(|ix| usize::try_from(ix).unwrap_or(usize::MAX))
            .collect();
        let mut out = Vec::with_capacity(dest.len());
        for (&d, vals) in dest.iter().zip(values) {
            let a = self.consume_array(stm, d)?;
            let dims = a.dims().to_vec();
            let (want, got) = (
                dims.get(1..).unwrap_or(&[]),
                vals.dims().get(1..).unwrap_or(&[]),
            );
            if want != got {
                let (x, y) = first_difference(want, got);
                return Err(self.size_mismatch(x, y, loc));
            }
            let m = a.outer();
            let row = a.row_elems();
            if self.checking() {
                self.check_scatter(&targets, vals, m, loc)?;
            }
            let mut data = a.into_data();
            for (i, &t) in targets.iter().enumerate() {
                if t < m && !data.write_from(t * row, &vals.data, vals.offset + i * row, row) {
                    return Err(self.internal("scatter of another element type", loc));
                }
            }
            out.push(Val::Array(Arr::whole(data, dims)));
        }
        Ok(out)
    }

    /// `hist` and `reduce_by_index`: each value combined into its bin (bin
    /// first, then the value); indices out of range are skipped.
    #[allow(clippy::too_many_arguments)]
    fn hist(
        &mut self,
        op: &Lambda,
        neutral: &[Atom],
        bins: &Atom,
        dest: Option<&[VarId]>,
        width: usize,
        arrays: &[Arr],
        loc: SrcLoc,
    ) -> Result<Vec<Val>, RunError> {
        let Some((indices, values)) = arrays.split_first() else {
            return Err(self.internal("hist without indices", loc));
        };
        let k = values.len();
        self.check_arity(op, 2 * k, loc)?;
        let ne = self.atoms(neutral)?;
        if ne.len() != k || op.ret.len() != k {
            return Err(self.internal("neutral elements do not fit the operator", loc));
        }
        // Bin `b`'s value of component `j` at `state[b * k + j]`: rows stay
        // shared views until they are combined.
        let mut state: Vec<Val> = match dest {
            Some(dest) => {
                if dest.len() != k {
                    return Err(self.internal("hist destinations do not fit its values", loc));
                }
                let ds: Vec<Arr> = dest
                    .iter()
                    .map(|d| self.array(*d).cloned())
                    .collect::<Result<_, _>>()?;
                let m = ds.first().map_or(0, Arr::outer);
                if let Some(d) = ds.iter().find(|d| d.outer() != m) {
                    return Err(self.size_mismatch(m as i64, d.outer() as i64, loc));
                }
                (0..m)
                    .flat_map(|b| ds.iter().map(move |d| d.row(b)))
                    .collect()
            }
            None => {
                let m = self.size(bins, loc)?;
                let mut state = Vec::new();
                if state.try_reserve(m.saturating_mul(k)).is_err() {
                    return Err(RunError::Program(format!(
                        "array too large at {}",
                        self.loc(loc)
                    )));
                }
                for _ in 0..m {
                    state.extend(ne.iter().cloned());
                }
                state
            }
        };
        let m = state.len() / k.max(1);
        // In the checking mode, reported once the run succeeded (an error
        // is the result, whatever came before it).
        let mut running: Vec<Vec<Val>> = Vec::new();
        if self.checking() {
            running.extend(state.chunks(k.max(1)).map(<[Val]>::to_vec));
        }
        let mut not_commuting = None;
        let mut combined_rows = Vec::new();
        for i in 0..width {
            let target = indices
                .data
                .get(indices.offset + i)
                .and_then(|c| c.as_i128())
                .and_then(|t| usize::try_from(t).ok())
                .filter(|&t| t < m);
            let Some(t) = target else { continue };
            let mut args: Vec<Val> = state[t * k..(t + 1) * k].to_vec();
            args.extend(values.iter().map(|a| a.row(i)));
            let combined = self.apply(op, args.clone())?;
            if self.checking() {
                combined_rows.push(i);
                running.push(combined.clone());
            }
            if self.checking() && not_commuting.is_none() {
                let (bin, value) = args.split_at(k);
                not_commuting = self.check_commutes(op, bin, value, &combined, loc).err();
            }
            for (slot, v) in state[t * k..(t + 1) * k].iter_mut().zip(combined) {
                *slot = v;
            }
        }
        if self.checking() {
            self.check_neutral("histogram", op, &ne, running.into_iter(), true, loc)?;
            let values_seen = combined_rows
                .iter()
                .map(|&i| values.iter().map(|a| a.row(i)).collect());
            self.check_strict("histogram", op, &ne, values_seen, loc)?;
            if let Some(err) = not_commuting {
                return Err(err);
            }
        }
        let mut builders: Vec<Builder> = op.ret.iter().map(|t| Builder::new(*t, m)).collect();
        for bin in state.chunks(k.max(1)) {
            for (b, v) in builders.iter_mut().zip(bin) {
                b.push(v, self, loc)?;
            }
        }
        Ok(builders
            .into_iter()
            .zip(&ne)
            .map(|(b, ne)| b.finish_like(ne))
            .collect())
    }

    fn check_arity(&self, lam: &Lambda, params: usize, loc: SrcLoc) -> Result<(), RunError> {
        if lam.params.len() != params || lam.body.result.len() != lam.ret.len() {
            return Err(RunError::Internal(format!(
                "lambda arity does not fit its SOAC at {}",
                self.loc(loc)
            )));
        }
        Ok(())
    }

    fn map(
        &mut self,
        lam: &Lambda,
        width: usize,
        arrays: &[Arr],
        loc: SrcLoc,
    ) -> Result<Vec<Val>, RunError> {
        self.check_arity(lam, arrays.len(), loc)?;
        let mut builders: Vec<Builder> = lam.ret.iter().map(|t| Builder::new(*t, width)).collect();
        for i in 0..width {
            for (p, a) in lam.params.iter().zip(arrays) {
                self.set(p.id, a.row(i));
            }
            self.exec_body(&lam.body)?;
            for (b, r) in builders.iter_mut().zip(&lam.body.result) {
                let v = self.atom(r)?;
                b.push(&v, self, loc)?;
            }
        }
        if width == 0 && lam.ret.iter().any(|t| t.rank() > 0) {
            if let Some(rows) = self.trial_rows(lam, arrays) {
                return Ok(builders
                    .into_iter()
                    .zip(&rows)
                    .map(|(b, row)| b.finish_like(row))
                    .collect());
            }
        }
        Ok(builders
            .into_iter()
            .zip(&lam.ret)
            .map(|(b, t)| b.finish(t.rank()))
            .collect())
    }

    /// What a `map` over no rows cannot observe: the shape of the rows it
    /// would have made (`map (\x -> [x]) []` is `empty([0][1]...)`, as
    /// Futhark's sizes say). Core IR has no sizes, so the function runs once
    /// on rows of zeros shaped like the arguments' rows, with a step budget;
    /// if that fails, the caller falls back to rows of size 0.
    fn trial_rows(&mut self, lam: &Lambda, arrays: &[Arr]) -> Option<Vec<Val>> {
        let args: Vec<Val> = arrays
            .iter()
            .map(|a| {
                let zero = Const::zero(a.data.elem());
                let dims = a.dims().get(1..).unwrap_or(&[]).to_vec();
                if dims.is_empty() {
                    Val::Scalar(zero)
                } else {
                    let n = dims.iter().product();
                    Val::Array(Arr::whole(ArrayData::filled(zero, n), dims))
                }
            })
            .collect();
        let outer = self.fuel;
        self.fuel = Some(outer.map_or(TRIAL_STEPS, |f| f.min(TRIAL_STEPS)));
        let rows = self.apply(lam, args);
        // An outer trial pays for this one's steps.
        self.fuel = match (outer, self.fuel) {
            (Some(_), Some(left)) => Some(left),
            (None, _) => None,
            (Some(_), None) => Some(0),
        };
        rows.ok()
    }

    /// `op` on two sets of values (accumulators, then elements).
    pub(super) fn apply_op(
        &mut self,
        op: &Lambda,
        acc: Vec<Val>,
        elems: Vec<Val>,
    ) -> Result<Vec<Val>, RunError> {
        for (p, v) in op.params.iter().zip(acc.into_iter().chain(elems)) {
            self.set(p.id, v);
        }
        self.exec_body(&op.body)?;
        op.body.result.iter().map(|r| self.atom(r)).collect()
    }

    /// Reduce (and, with `rows`, inclusive scan): a left fold of the rows
    /// in `range` from `acc`.
    fn fold(
        &mut self,
        op: &Lambda,
        mut acc: Vec<Val>,
        range: std::ops::Range<usize>,
        arrays: &[Arr],
        loc: SrcLoc,
        mut rows: Option<&mut Vec<Builder>>,
    ) -> Result<Vec<Val>, RunError> {
        let k = arrays.len();
        self.check_arity(op, 2 * k, loc)?;
        if acc.len() != k || op.ret.len() != k {
            return Err(RunError::Internal(format!(
                "neutral elements do not fit the operator at {}",
                self.loc(loc)
            )));
        }
        for i in range {
            for (p, v) in op.params[..k].iter().zip(acc.drain(..)) {
                self.set(p.id, v);
            }
            for (p, a) in op.params[k..].iter().zip(arrays) {
                self.set(p.id, a.row(i));
            }
            self.exec_body(&op.body)?;
            for r in &op.body.result {
                acc.push(self.atom(r)?);
            }
            if let Some(builders) = rows.as_deref_mut() {
                for (b, v) in builders.iter_mut().zip(&acc) {
                    b.push(v, self, loc)?;
                }
            }
        }
        Ok(acc)
    }
}
