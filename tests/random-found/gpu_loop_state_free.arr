-- Run with `arrc test --target nvptx-emu`: the binary stops with
-- "internal compiler error: freeing device address ... that was not
-- allocated" (exit 70) when a loop's array state is only used for its
-- length and the loop runs at least once. The loopy IR shows the state
-- made by a host loop and the final state freed as device memory.
-- Found from seed 840008 (`--long`, nvptx-emu -O3 --fusion ilp), whose
-- `while` loop with array state is new in the generator.
-- ==
-- input { [1, 2] [3, 4] }
-- output { 2i64 }
-- input { empty([0]i32) empty([0]i32) }
-- output { 0i64 }

def main (in0: []i32) (in1: []i32) : i64 =
  length (loop a = in0 for _k < 2i64 do map (+1) a)
