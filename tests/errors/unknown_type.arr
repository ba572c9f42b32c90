entry main (x: int) : int = x
