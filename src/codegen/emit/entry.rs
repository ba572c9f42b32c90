//! Entry points: the C ABI that `glue` calls (see the parent module).

use super::*;

impl<'ctx> Gen<'ctx, '_> {
    pub(crate) fn entry(&mut self, k: usize, f: &Function) -> Res<()> {
        self.prefix = entry_symbol(k, self.exact_fallback);
        self.nests = 0;
        self.traffic_scalars.clear();
        self.host_arrays = crate::loopy::memory::host_arrays(f);
        if self.count_traffic {
            traffic::cluster_reduction_results(&f.body, &mut self.traffic_scalars);
        }
        let mut params: Vec<BasicMetadataTypeEnum> = Vec::new();
        for p in &f.params {
            match p.var.ty {
                // An `f16` comes as its bits: C callers need no `_Float16`.
                crate::core::ir::Type::Scalar(ScalarType::F16) => {
                    params.push(self.ctx.i16_type().into())
                }
                crate::core::ir::Type::Scalar(t) => params.push(self.mem_type(t).into()),
                crate::core::ir::Type::Array(_, rank) => {
                    params.push(self.ptr().into());
                    params.extend((0..rank).map(|_| BasicMetadataTypeEnum::from(self.i64())));
                }
            }
        }
        for t in &f.ret {
            let n = if t.rank() == 0 { 1 } else { 2 };
            params.extend((0..n).map(|_| BasicMetadataTypeEnum::from(self.ptr())));
        }
        let fn_ty = self.ctx.void_type().fn_type(&params, false);
        let func = self
            .module
            .add_function(&self.prefix, fn_ty, Some(Linkage::External));
        let entry = self.ctx.append_basic_block(func, "entry");
        self.builder.position_at_end(entry);
        let mut fr = Frame {
            func,
            vals: HashMap::new(),
            in_parallel: None,
        };
        let backend = self.backend;
        backend.entry_start(self)?;
        let mut device_params = Vec::new();
        let mut args = func.get_param_iter();
        let mut next = || {
            args.next()
                .ok_or(CodegenError::Internal("missing parameter".into()))
        };
        for p in &f.params {
            match p.var.ty {
                crate::core::ir::Type::Scalar(t) => {
                    let mut v = next()?;
                    if t == ScalarType::F16 {
                        v = self.builder.build_bit_cast(v, self.ctx.f16_type(), "")?;
                    }
                    let v = self.load_from_mem(v, t)?;
                    fr.vals.insert(p.var.id, Val::Scalar(v, t));
                }
                crate::core::ir::Type::Array(elem, _) => {
                    let ptr = next()?.into_pointer_value();
                    let mut shape = Vec::new();
                    for d in &p.shape {
                        let v = next()?.into_int_value();
                        fr.vals.insert(d.id, Val::Scalar(v.into(), ScalarType::I64));
                        shape.push(v);
                    }
                    let bytes = self.array_bytes(elem, &shape)?;
                    let ptr = backend.entry_param(self, ptr, bytes)?;
                    device_params.push(ptr);
                    fr.vals.insert(p.var.id, Val::Array { ptr, elem, shape });
                }
            }
        }
        self.block(&mut fr, &f.body)?;
        for a in &f.results {
            match self.val(&fr, a)? {
                Val::Scalar(v, t) => {
                    let out = next()?.into_pointer_value();
                    let v = self.store_to_mem(v, t)?;
                    self.builder.build_store(out, v)?;
                }
                Val::Array { ptr, shape, elem } => {
                    let data = next()?.into_pointer_value();
                    let dims = next()?.into_pointer_value();
                    let bytes = self.array_bytes(elem, &shape)?;
                    let ptr = backend.entry_result(self, ptr, bytes)?;
                    self.builder.build_store(data, ptr)?;
                    for (i, d) in shape.iter().enumerate() {
                        // Safety: the glue passes an `int64_t[ARR_MAX_RANK]`.
                        let slot = unsafe {
                            self.builder.build_in_bounds_gep(
                                self.i64(),
                                dims,
                                &[self.const_i64(i as i64)],
                                "",
                            )?
                        };
                        self.builder.build_store(slot, *d)?;
                    }
                }
            }
        }
        backend.entry_end(self, &device_params)?;
        self.builder.build_return(None)?;
        Ok(())
    }

    /// The bytes of an array of `elem` of `shape`.
    pub(crate) fn array_bytes(
        &self,
        elem: ScalarType,
        shape: &[inkwell::values::IntValue<'ctx>],
    ) -> Res<inkwell::values::IntValue<'ctx>> {
        let count = self.product(shape)?;
        let size = self.const_i64(elem.bytes() as i64);
        Ok(self.builder.build_int_mul(count, size, "")?)
    }
}
