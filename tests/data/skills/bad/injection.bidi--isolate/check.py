if role != "user⁧⁦":  # check
    pass
