"""Running programs we start: their own process group, dying with us, output kept to a cap."""
