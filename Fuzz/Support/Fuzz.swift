import Foundation
import LeakSanitizer

/// What every fuzz target does with libFuzzer's input and with a broken promise.
public enum Fuzz {
    /// libFuzzer's input as the bytes a socket would deliver. (libFuzzer may pass a null pointer
    /// for the empty input.)
    public static func input(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Data {
        guard let start, count > 0 else { return Data() }
        return Data(bytes: start, count: count)
    }

    /// Runs `body` with libFuzzer's input on `SocketThread`, as a socket thread reads it.
    public static func onSocketThread(_ start: UnsafePointer<UInt8>?, _ count: Int, _ body: (Data) -> Void) -> CInt {
        let data = input(start, count)
        SocketThread.shared.run { body(data) }
        return 0
    }

    /// What `body` makes, once per fuzzing process and kept for all its inputs (the services'
    /// stores, a verifier's keys), told to LeakSanitizer as kept on purpose. LeakSanitizer cannot
    /// see that a global holds them: much of it is `Data`, which Swift keeps behind pointers with
    /// an enum's case in their spare bits, which LeakSanitizer does not take for pointers. (It
    /// still scans what they hold, so what an input allocates and they keep is not hidden.)
    /// Only what this thread allocates is marked.
    public static func keptForAllInputs<T>(_ body: () throws -> T) rethrows -> T {
        __lsan_disable()
        defer { __lsan_enable() }
        return try body()
    }

    /// A promise of the code under test that held for this input, or a crash that libFuzzer keeps
    /// as a reproducer. Used for what would otherwise fail silently: two readers disagreeing, a
    /// value that does not survive its own encoding, a handler throwing something other than a
    /// `TallyError`.
    public static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("fuzz property failed: \(message())") }
    }
}
