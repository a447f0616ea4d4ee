ccl.scratch @s slots 1
