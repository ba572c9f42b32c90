entry main (x: f64) : f64 = vjp (\y -> y * y) x 1
