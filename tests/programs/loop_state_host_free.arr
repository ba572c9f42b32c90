-- A loop's array state used only for its length, made by a map host code
-- runs: on a GPU target the loop's variables and the copies they start
-- from form one memory class in host memory, and the last state must be
-- freed as host memory (seed 840008 of `arrc random --long`, whose
-- `while` loop with array state is new; nvptx-emu exited 70, "freeing
-- device address ... that was not allocated").
-- ==
-- input { [1, 2] [3, 4] }
-- output { 2i64 }
-- input { empty([0]i32) empty([0]i32) }
-- output { 0i64 }

def main (in0: []i32) (in1: []i32) : i64 =
  length (loop a = in0 for _k < 2i64 do map (+1) a)
