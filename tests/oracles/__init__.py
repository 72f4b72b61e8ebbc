"""Independent readings of the rules and the code the compiled paths replaced; the tests compare
the packages against them."""
