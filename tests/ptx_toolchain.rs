//! The PTX toolchain, end to end without a GPU: a small NVPTX module built
//! by hand with inkwell (triple nvptx64-nvidia-cuda, a kernel named in
//! `nvvm.annotations`, a block reduction with warp shuffles, dynamic shared
//! memory and a barrier, an atomic, and the device library's error call)
//! goes through LLVM's NVPTX back end to PTX, which `ptxas` from the PyPI
//! package nvidia-cuda-nvcc-cu12 must assemble for sm_70, sm_80 and sm_90
//! without spills. A second module calls libdevice's `__nv_expf`, linked as
//! bitcode. Also pins what LLVM 19's NVPTX back end cannot select (the
//! device ABI in arr_gpu_device.h works around it).
//!
//! Skipped, with a notice, only where ptxas is not installed; under CI
//! (`CI` set) a missing ptxas fails the test, since tests/deps.sh installs it.

use arrc::runtime::gpu::DEVICE_LIBRARY_LL;
use arrc::runtime::ptx::{self, CudaTools, ARCHS};
use inkwell::attributes::AttributeLoc;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{FlagBehavior, Linkage, Module};
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
};
use inkwell::values::{BasicMetadataValueEnum, FunctionValue};
use inkwell::{AddressSpace, AtomicOrdering, AtomicRMWBinOp, IntPredicate, OptimizationLevel};

const TRIPLE: &str = "nvptx64-nvidia-cuda";

fn tools() -> Option<CudaTools> {
    let found = ptx::find();
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "ptxas not found under CI: tests/deps.sh installs nvidia-cuda-nvcc-cu12"
        );
        eprintln!("ptxas not found (pip install nvidia-cuda-nvcc-cu12): PTX not assembled");
    }
    found
}

fn machine(arch: &str) -> TargetMachine {
    Target::initialize_nvptx(&InitializationConfig::default());
    let triple = TargetTriple::create(TRIPLE);
    let target = Target::from_triple(&triple).expect("LLVM has the NVPTX target");
    // PTX ISA 7.5 (CUDA 11.5) reads sm_70 and sm_80; sm_90 needs 7.8.
    let features = if arch == "sm_90" { "+ptx78" } else { "+ptx75" };
    target
        .create_target_machine(
            &triple,
            arch,
            features,
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::Default,
        )
        .expect("an NVPTX target machine")
}

fn mark_kernel<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>, f: FunctionValue<'ctx>) {
    let node = ctx.metadata_node(&[
        BasicMetadataValueEnum::PointerValue(f.as_global_value().as_pointer_value()),
        ctx.metadata_string("kernel").into(),
        ctx.i32_type().const_int(1, false).into(),
    ]);
    module
        .add_global_metadata("nvvm.annotations", &node)
        .unwrap();
}

/// Per block: sum the block's grid-stride share of `xs` (f32), reduce it
/// by warp shuffles, one value per warp in shared memory, a barrier, warp 0
/// reduces those; thread 0 writes the block's sum to `out[block]` and
/// counts the block in `done` atomically. A negative `n` is reported
/// through the device library's `arr_gpu_fail`.
fn reduce_module<'ctx>(ctx: &'ctx Context, tm: &TargetMachine) -> Module<'ctx> {
    let module = ctx.create_module("reduce");
    module.set_triple(&TargetTriple::create(TRIPLE));
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let (i32t, i64t, f32t, void) = (
        ctx.i32_type(),
        ctx.i64_type(),
        ctx.f32_type(),
        ctx.void_type(),
    );
    let global = ctx.ptr_type(AddressSpace::from(1));
    let shared_space = AddressSpace::from(3);
    let b = ctx.create_builder();
    let sreg = |name: &str| {
        let f = module.add_function(
            &format!("llvm.nvvm.read.ptx.sreg.{name}"),
            i32t.fn_type(&[], false),
            None,
        );
        b.build_call(f, &[], name)
            .unwrap()
            .try_as_basic_value()
            .basic()
            .unwrap()
            .into_int_value()
    };
    let shfl = module.add_function(
        "llvm.nvvm.shfl.sync.down.f32",
        f32t.fn_type(&[i32t.into(), f32t.into(), i32t.into(), i32t.into()], false),
        None,
    );
    let barrier = module.add_function("llvm.nvvm.barrier0", void.fn_type(&[], false), None);
    let fail = module.add_function(
        "arr_gpu_fail",
        void.fn_type(
            &[
                global.into(),
                i64t.into(),
                i64t.into(),
                i32t.into(),
                i32t.into(),
                i64t.into(),
                i64t.into(),
                i64t.into(),
                i64t.into(),
            ],
            false,
        ),
        None,
    );
    let shared = module.add_global(i32t.array_type(0), Some(shared_space), "arr_shared");
    shared.set_linkage(Linkage::External);
    shared.set_alignment(16);

    let kernel = module.add_function(
        "reduce",
        void.fn_type(
            &[
                global.into(),
                i64t.into(),
                global.into(),
                global.into(),
                global.into(),
                i64t.into(),
            ],
            false,
        ),
        None,
    );
    mark_kernel(ctx, &module, kernel);
    let param = |i| kernel.get_nth_param(i).unwrap();
    let (err, seq, xs, out, done, n) = (
        param(0).into_pointer_value(),
        param(1).into_int_value(),
        param(2).into_pointer_value(),
        param(3).into_pointer_value(),
        param(4).into_pointer_value(),
        param(5).into_int_value(),
    );
    let block = |name| ctx.append_basic_block(kernel, name);
    let (entry, failed, start, head, body, warps) = (
        block("entry"),
        block("failed"),
        block("start"),
        block("head"),
        block("body"),
        block("warps"),
    );
    let (store, stored, first_warp, load, merge, write, exit) = (
        block("store"),
        block("stored"),
        block("first_warp"),
        block("load"),
        block("merge"),
        block("write"),
        block("exit"),
    );

    b.position_at_end(entry);
    let tid = sreg("tid.x");
    let ntid = sreg("ntid.x");
    let ctaid = sreg("ctaid.x");
    let nctaid = sreg("nctaid.x");
    let wide = |v| b.build_int_z_extend(v, i64t, "wide").unwrap();
    let gid = b
        .build_int_add(
            b.build_int_mul(wide(ctaid), wide(ntid), "base").unwrap(),
            wide(tid),
            "gid",
        )
        .unwrap();
    let stride = b.build_int_mul(wide(nctaid), wide(ntid), "stride").unwrap();
    let negative = b
        .build_int_compare(IntPredicate::SLT, n, i64t.const_zero(), "negative")
        .unwrap();
    b.build_conditional_branch(negative, failed, start).unwrap();

    b.position_at_end(failed);
    let zero = i64t.const_zero();
    b.build_call(
        fail,
        &[
            err.into(),
            seq.into(),
            zero.into(),
            i32t.const_int(6, false).into(),
            i32t.const_zero().into(),
            n.into(),
            zero.into(),
            zero.into(),
            zero.into(),
        ],
        "",
    )
    .unwrap();
    b.build_return(None).unwrap();

    b.position_at_end(start);
    b.build_unconditional_branch(head).unwrap();
    b.position_at_end(head);
    let i = b.build_phi(i64t, "i").unwrap();
    let acc = b.build_phi(f32t, "acc").unwrap();
    let more = b
        .build_int_compare(
            IntPredicate::SLT,
            i.as_basic_value().into_int_value(),
            n,
            "more",
        )
        .unwrap();
    b.build_conditional_branch(more, body, warps).unwrap();

    b.position_at_end(body);
    let iv = i.as_basic_value().into_int_value();
    let at = unsafe { b.build_in_bounds_gep(f32t, xs, &[iv], "at").unwrap() };
    let x = b.build_load(f32t, at, "x").unwrap().into_float_value();
    let acc2 = b
        .build_float_add(acc.as_basic_value().into_float_value(), x, "acc2")
        .unwrap();
    let next = b.build_int_add(iv, stride, "next").unwrap();
    b.build_unconditional_branch(head).unwrap();
    i.add_incoming(&[(&gid, start), (&next, body)]);
    acc.add_incoming(&[(&f32t.const_zero(), start), (&acc2, body)]);

    // Warp shuffles: lane 0 ends with its warp's sum.
    let warp_sum = |v: inkwell::values::FloatValue<'ctx>| {
        let mut v = v;
        for off in [16, 8, 4, 2, 1] {
            let other = b
                .build_call(
                    shfl,
                    &[
                        i32t.const_all_ones().into(),
                        v.into(),
                        i32t.const_int(off, false).into(),
                        i32t.const_int(0x1f, false).into(),
                    ],
                    "other",
                )
                .unwrap()
                .try_as_basic_value()
                .basic()
                .unwrap()
                .into_float_value();
            v = b.build_float_add(v, other, "sum").unwrap();
        }
        v
    };
    b.position_at_end(warps);
    let mine = warp_sum(acc.as_basic_value().into_float_value());
    let lane = b.build_and(tid, i32t.const_int(31, false), "lane").unwrap();
    let warp = b
        .build_right_shift(tid, i32t.const_int(5, false), false, "warp")
        .unwrap();
    let lane0 = b
        .build_int_compare(IntPredicate::EQ, lane, i32t.const_zero(), "lane0")
        .unwrap();
    b.build_conditional_branch(lane0, store, stored).unwrap();
    b.position_at_end(store);
    let slot = unsafe {
        b.build_in_bounds_gep(f32t, shared.as_pointer_value(), &[warp], "slot")
            .unwrap()
    };
    b.build_store(slot, mine).unwrap();
    b.build_unconditional_branch(stored).unwrap();

    b.position_at_end(stored);
    b.build_call(barrier, &[], "").unwrap();
    let warp0 = b
        .build_int_compare(IntPredicate::EQ, warp, i32t.const_zero(), "warp0")
        .unwrap();
    b.build_conditional_branch(warp0, first_warp, exit).unwrap();
    b.position_at_end(first_warp);
    let nwarps = b
        .build_right_shift(ntid, i32t.const_int(5, false), false, "nwarps")
        .unwrap();
    let has = b
        .build_int_compare(IntPredicate::ULT, lane, nwarps, "has")
        .unwrap();
    b.build_conditional_branch(has, load, merge).unwrap();
    b.position_at_end(load);
    let slot = unsafe {
        b.build_in_bounds_gep(f32t, shared.as_pointer_value(), &[lane], "slot")
            .unwrap()
    };
    let partial = b.build_load(f32t, slot, "partial").unwrap();
    b.build_unconditional_branch(merge).unwrap();
    b.position_at_end(merge);
    let value = b.build_phi(f32t, "value").unwrap();
    value.add_incoming(&[(&f32t.const_zero(), first_warp), (&partial, load)]);
    let total = warp_sum(value.as_basic_value().into_float_value());
    let thread0 = b
        .build_int_compare(IntPredicate::EQ, tid, i32t.const_zero(), "thread0")
        .unwrap();
    b.build_conditional_branch(thread0, write, exit).unwrap();
    b.position_at_end(write);
    let dst = unsafe { b.build_in_bounds_gep(f32t, out, &[ctaid], "dst").unwrap() };
    b.build_store(dst, total).unwrap();
    b.build_atomicrmw(
        AtomicRMWBinOp::Add,
        done,
        i32t.const_int(1, false),
        AtomicOrdering::Monotonic,
    )
    .unwrap();
    b.build_unconditional_branch(exit).unwrap();
    b.position_at_end(exit);
    b.build_return(None).unwrap();

    // The device library, linked before optimisation; its functions are
    // internal afterwards.
    let library = ctx
        .create_module_from_ir(MemoryBuffer::create_from_memory_range_copy(
            DEVICE_LIBRARY_LL.as_bytes(),
            "arr_gpu_device",
        ))
        .expect("arr_gpu_device.ll parses");
    module
        .link_in_module(library)
        .expect("the device library links");
    module
        .get_function("arr_gpu_fail")
        .unwrap()
        .set_linkage(Linkage::Internal);
    module
}

/// PTX of `module` after LLVM's -O3 pipeline for `tm`.
fn to_ptx(module: &Module, tm: &TargetMachine) -> String {
    module.verify().expect("the module verifies");
    module
        .run_passes("default<O3>", tm, PassBuilderOptions::create())
        .expect("optimisation");
    let buffer = tm
        .write_to_memory_buffer(module, FileType::Assembly)
        .expect("PTX emission");
    String::from_utf8_lossy(buffer.as_slice()).into_owned()
}

fn check_assembles(tools: &CudaTools, ptx: &str, arch: &str, kernel: &str) {
    let stats = ptx::assemble(tools, ptx, arch).unwrap_or_else(|e| panic!("{e}\n{ptx}"));
    let k = stats
        .iter()
        .find(|s| s.name == kernel && s.is_kernel)
        .unwrap_or_else(|| panic!("no statistics for {kernel}: {stats:?}"));
    println!(
        "{arch} {kernel}: {} registers, {} bytes stack, spills {}/{} bytes",
        k.registers, k.stack_frame_bytes, k.spill_store_bytes, k.spill_load_bytes
    );
    assert!(k.registers > 0);
    assert_eq!((k.spill_store_bytes, k.spill_load_bytes), (0, 0));
}

#[test]
fn hand_written_reduce_goes_through_llvm_and_ptxas() {
    let tools = tools();
    for arch in ARCHS {
        let tm = machine(arch);
        let ctx = Context::create();
        let module = reduce_module(&ctx, &tm);
        let ptx = to_ptx(&module, &tm);
        for needle in [
            &format!(".target {arch}"),
            ".entry reduce",
            "shfl.sync.down.b32",
            "bar.sync",
            "atom.global.add.u32",
            ".extern .shared .align 16 .b8 arr_shared[]",
            // The device library's lock.
            "atom.global.cas.b32",
            "nanosleep",
        ] {
            assert!(ptx.contains(needle), "{needle} missing from:\n{ptx}");
        }
        if let Some(tools) = &tools {
            check_assembles(tools, &ptx, arch, "reduce");
        }
    }
}

/// `ys[i] = __nv_expf(xs[i])` with libdevice linked as bitcode: everything
/// but the kernel internal, so the optimiser keeps only what is called and
/// the target's NVVMReflect pass folds libdevice's `__nvvm_reflect` queries.
#[test]
fn libdevice_links_as_bitcode() {
    let Some(tools) = tools() else { return };
    let Some(libdevice) = tools.libdevice.clone() else {
        panic!(
            "ptxas found at {} but no libdevice.10.bc",
            tools.ptxas.display()
        );
    };
    let tm = machine("sm_80");
    let ctx = Context::create();
    let module = ctx.create_module("exp");
    module.set_triple(&TargetTriple::create(TRIPLE));
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    // Flush-to-zero off: IEEE subnormals, as on the CPU.
    module.add_basic_value_flag(
        "nvvm-reflect-ftz",
        FlagBehavior::Override,
        ctx.i32_type().const_zero(),
    );
    let (i32t, i64t, f32t) = (ctx.i32_type(), ctx.i64_type(), ctx.f32_type());
    let global = ctx.ptr_type(AddressSpace::from(1));
    let expf = module.add_function("__nv_expf", f32t.fn_type(&[f32t.into()], false), None);
    let kernel = module.add_function(
        "exp_map",
        ctx.void_type()
            .fn_type(&[global.into(), global.into(), i64t.into()], false),
        None,
    );
    mark_kernel(&ctx, &module, kernel);
    let nounwind = ctx.create_enum_attribute(
        inkwell::attributes::Attribute::get_named_enum_kind_id("nounwind"),
        0,
    );
    kernel.add_attribute(AttributeLoc::Function, nounwind);
    let b = ctx.create_builder();
    let entry = ctx.append_basic_block(kernel, "entry");
    let body = ctx.append_basic_block(kernel, "body");
    let exit = ctx.append_basic_block(kernel, "exit");
    b.position_at_end(entry);
    let tid = module.add_function(
        "llvm.nvvm.read.ptx.sreg.tid.x",
        i32t.fn_type(&[], false),
        None,
    );
    let t = b
        .build_call(tid, &[], "t")
        .unwrap()
        .try_as_basic_value()
        .basic()
        .unwrap()
        .into_int_value();
    let i = b.build_int_z_extend(t, i64t, "i").unwrap();
    let n = kernel.get_nth_param(2).unwrap().into_int_value();
    let inside = b
        .build_int_compare(IntPredicate::SLT, i, n, "inside")
        .unwrap();
    b.build_conditional_branch(inside, body, exit).unwrap();
    b.position_at_end(body);
    let xs = kernel.get_nth_param(0).unwrap().into_pointer_value();
    let ys = kernel.get_nth_param(1).unwrap().into_pointer_value();
    let at = unsafe { b.build_in_bounds_gep(f32t, xs, &[i], "at").unwrap() };
    let x = b.build_load(f32t, at, "x").unwrap();
    let y = b
        .build_call(expf, &[x.into()], "y")
        .unwrap()
        .try_as_basic_value()
        .basic()
        .unwrap();
    let to = unsafe { b.build_in_bounds_gep(f32t, ys, &[i], "to").unwrap() };
    b.build_store(to, y).unwrap();
    b.build_unconditional_branch(exit).unwrap();
    b.position_at_end(exit);
    b.build_return(None).unwrap();

    let lib = Module::parse_bitcode_from_path(&libdevice, &ctx).expect("libdevice parses");
    assert!(lib.get_function("__nv_expf").is_some());
    lib.set_triple(&TargetTriple::create(TRIPLE));
    lib.set_data_layout(&tm.get_target_data().get_data_layout());
    module.link_in_module(lib).expect("libdevice links");
    let mut f = module.get_first_function();
    while let Some(func) = f {
        if func.count_basic_blocks() > 0 && func != kernel {
            func.set_linkage(Linkage::Internal);
        }
        f = func.get_next_function();
    }
    let ptx = to_ptx(&module, &tm);
    assert!(ptx.contains(".entry exp_map"), "{ptx}");
    assert!(
        !ptx.contains("__nvvm_reflect"),
        "reflect calls left:\n{ptx}"
    );
    assert!(
        ptx.len() < 20_000,
        "unused libdevice functions kept ({} bytes of PTX)",
        ptx.len()
    );
    check_assembles(&tools, &ptx, "sm_80", "exp_map");
}

/// What LLVM 19's NVPTX back end cannot select, which the device ABI
/// (arr_gpu_device.h) therefore maps to membar intrinsics and volatile
/// accesses. If this test starts failing, LLVM learned them: the ABI may
/// then use them directly.
#[test]
fn nvptx_back_end_limits_the_device_abi_works_around() {
    // Selection failures abort the process in LLVM, so they are probed in
    // a child, LLVM 19's own `llc` (the one arrc links).
    let llc = std::path::Path::new("/usr/lib/llvm-19/bin/llc");
    if !llc.is_file() {
        eprintln!("llc-19 not found: not probed");
        return;
    }
    for (what, ir) in [
        ("fence", "fence seq_cst"),
        (
            "an acquire load",
            "%v = load atomic i32, ptr addrspace(1) %p acquire, align 4",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("probe.ll");
        let text = format!(
            "target triple = \"{TRIPLE}\"\ndefine void @f(ptr addrspace(1) %p) {{\n  {ir}\n  ret void\n}}\n"
        );
        std::fs::write(&file, text).unwrap();
        let out = std::process::Command::new(llc)
            .args(["-march=nvptx64", "-mcpu=sm_70", "-mattr=+ptx75", "-o", "-"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("Cannot select"),
            "LLVM now selects {what}: arr_gpu_device.h's workaround may go"
        );
    }
}
