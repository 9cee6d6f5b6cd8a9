import Foundation

/// Runs `body(0..<count)` on `count` threads of their own (as workers' threads are: the engine is
/// never called from the concurrency pool), and returns when all have finished.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let finished = DispatchGroup()
    for index in 0..<count {
        finished.enter()
        Thread {
            body(index)
            finished.leave()
        }.start()
    }
    finished.wait()
}
