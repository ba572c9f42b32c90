-- Black-Scholes call and put prices for n European options. The uniform
-- random inputs in [0, 1) are mapped to realistic parameters: spot 10-110,
-- strike 10-110, expiry 0.25-2.25 years, volatility 10%-60%, rate 2%.

def cnd (d: f32) : f32 =
  -- Cumulative normal distribution (Abramowitz and Stegun 26.2.17).
  let k = 1.0f32 / (1.0f32 + 0.2316419f32 * f32.abs d)
  let poly = k * (0.31938153f32 + k * (-0.356563782f32 + k * (1.781477937f32
             + k * (-1.821255978f32 + k * 1.330274429f32))))
  let w = 1.0f32 - 0.39894228f32 * f32.exp (-0.5f32 * d * d) * poly
  in if d < 0.0f32 then 1.0f32 - w else w

def price (us: f32) (uk: f32) (ut: f32) (uv: f32) : (f32, f32) =
  let s = 10.0f32 + 100.0f32 * us
  let k = 10.0f32 + 100.0f32 * uk
  let t = 0.25f32 + 2.0f32 * ut
  let v = 0.1f32 + 0.5f32 * uv
  let r = 0.02f32
  let sqrt_t = f32.sqrt t
  let d1 = (f32.log (s / k) + (r + 0.5f32 * v * v) * t) / (v * sqrt_t)
  let d2 = d1 - v * sqrt_t
  let disc = k * f32.exp (-r * t)
  let call = s * cnd d1 - disc * cnd d2
  let put = disc * cnd (-d2) - s * cnd (-d1)
  in (call, put)

-- The sums of all call and put prices (so the benchmark prints two
-- numbers), accumulated in f64: ten million f32 additions in a row would
-- lose more than the test tolerance.
-- ==
-- input { [0.5f32, 0.25f32] [0.5f32, 0.75f32] [0.5f32, 0.0f32] [0.5f32, 1.0f32] }
-- output { 9.959138 58.053787 }
-- random input { [10000000]f32 [10000000]f32 [10000000]f32 [10000000]f32 }
-- tags { bench }
entry main [n] (us: [n]f32) (uk: [n]f32) (ut: [n]f32) (uv: [n]f32) : (f64, f64) =
  let (calls, puts) = unzip (map4 price us uk ut uv)
  in (reduce (+) 0.0 (map f64.f32 calls), reduce (+) 0.0 (map f64.f32 puts))

-- A deterministic value in [0, 1) for index i of stream k: a 64-bit mix of
-- both (so a big benchmark needs no input beyond its size).
def unit (k: i64) (i: i64) : f32 =
  let x = (i + 1) * -7046029254386353131 + k * 1442695040888963407
  let x = (x ^ (x >>> 31)) * -4658895280553007687
  let x = x ^ (x >>> 29)
  in f32.i64 (x >>> 40) / 16777216.0f32

-- The same on n generated options, sized to run about a second on one
-- thread here (the multicore speed-up benchmark, benches/multicore.sh).
-- ==
-- entry: generated
-- input { 4i64 } output { 21.664270520210266 83.60983419418335 }
-- input { 50000000i64 }
-- tags { bench }
entry generated (n: i64) : (f64, f64) =
  let (calls, puts) =
    unzip (tabulate n (\i -> price (unit 0 i) (unit 1 i) (unit 2 i) (unit 3 i)))
  in (reduce (+) 0.0 (map f64.f32 calls), reduce (+) 0.0 (map f64.f32 puts))
