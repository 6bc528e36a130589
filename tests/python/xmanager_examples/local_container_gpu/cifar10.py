print("trains on the GPUs")
