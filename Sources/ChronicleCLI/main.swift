print("chronicle")
