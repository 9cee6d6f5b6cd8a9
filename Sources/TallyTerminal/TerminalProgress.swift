import Foundation

/// Progress of a long operation, on standard error: a line redrawn in place on a terminal,
/// nothing when standard error is a file or a pipe (a log has no use for a moving bar).
public final class TerminalProgress: @unchecked Sendable {
    private let label: String
    private let onTerminal = isatty(STDERR_FILENO) == 1
    private var shown = false

    public init(label: String) {
        self.label = label
    }

    /// `done` of `total` units (pages, currencies).
    public func update(_ done: Int, _ total: Int) {
        guard onTerminal, total > 0 else { return }
        let percent = done * 100 / total
        FileHandle.standardError.write(Data("\r\(label): \(percent)% (\(done) of \(total))".utf8))
        shown = true
    }

    /// Ends the progress line, if one is shown, so that what is written next starts a line of its own.
    public func finish() {
        if shown { FileHandle.standardError.write(Data("\n".utf8)) }
        shown = false
    }
}
