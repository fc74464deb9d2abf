print("bench")
runFeedBenchmarks()
