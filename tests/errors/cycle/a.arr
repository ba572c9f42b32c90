-- Part of the import cycle exercised by tests/errors/import_cycle.arr.
import "b"

def fa (x: i32) : i32 = x + 1
