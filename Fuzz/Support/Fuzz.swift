import Foundation

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

    /// A promise of the code under test that held for this input, or a crash that libFuzzer keeps
    /// as a reproducer. Used for what would otherwise fail silently: two readers disagreeing, a
    /// value that does not survive its own encoding, a handler throwing something other than a
    /// `TallyError`.
    public static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("fuzz property failed: \(message())") }
    }
}
