-- Part of the import cycle exercised by tests/errors/import_cycle.arr.
import "a"

def fb (x: i32) : i32 = x + 2
