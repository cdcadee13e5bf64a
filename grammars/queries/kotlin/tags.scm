; seed: replaced by the language's real tags query
