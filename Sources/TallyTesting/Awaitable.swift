import Foundation
import Synchronization

/// A value that changes on other threads, and async code that waits for it to satisfy a condition.
///
/// Why not poll: a waiter is resumed by the thread that made the change, at the moment it made it,
/// so a busy machine (or a test process whose concurrency pool is busy with other tests) can make
/// the waiter late but never makes it miss the change. The timeout runs on a Dispatch timer
/// outside the concurrency pool and only decides when nothing happened at all.
final class Awaitable<Value: Sendable>: Sendable {
    private struct Waiter {
        let predicate: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Value?, Never>
    }

    private struct State {
        var value: Value
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    var value: Value { state.withLock { $0.value } }

    /// Changes the value and resumes every waiter whose condition now holds.
    func update(_ change: (inout Value) -> Void) {
        let resumed = state.withLock { state -> [(CheckedContinuation<Value?, Never>, Value)] in
            change(&state.value)
            let value = state.value
            let satisfied = state.waiters.filter { $0.value.predicate(value) }
            for id in satisfied.keys { state.waiters[id] = nil }
            return satisfied.values.map { ($0.continuation, value) }
        }
        for (continuation, value) in resumed { continuation.resume(returning: value) }
    }

    /// The value once `predicate` holds, or nil if it did not within `timeout`.
    func wait(until predicate: @escaping @Sendable (Value) -> Bool, timeout: Duration) async -> Value? {
        await withCheckedContinuation { continuation in
            let id: UInt64? = state.withLock { state in
                if predicate(state.value) {
                    continuation.resume(returning: state.value)
                    return nil
                }
                let id = state.nextID
                state.nextID += 1
                state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                return id
            }
            guard let id else { return }
            let (seconds, attoseconds) = timeout.components
            DispatchQueue.global().asyncAfter(
                deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            ) { [self] in
                let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.continuation.resume(returning: nil)
            }
        }
    }
}
