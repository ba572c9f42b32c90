entry main 't (x: t) : t = x
