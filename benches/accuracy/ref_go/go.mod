module ccaccuracy/refgo

go 1.19
