print("the agent is not run by a dry run")
