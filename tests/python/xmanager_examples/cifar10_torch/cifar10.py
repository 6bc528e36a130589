print("the trainer is not run by a dry run")
