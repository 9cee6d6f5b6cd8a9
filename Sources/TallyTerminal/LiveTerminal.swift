import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal while a full-screen view (`tally status`) runs: the alternate screen (so the
/// shell's screen comes back untouched), no cursor, and standard input in cbreak mode, where a key
/// arrives as it is pressed and is not echoed. Ctrl-C still raises SIGINT, which ends the view
/// through the process's usual graceful shutdown; `restore()` puts everything back.
///
/// Hand-written, not a library: it takes four escape sequences, `termios` and one `ioctl`. Of the
/// packages that resolve here, Rainbow only colours text and console-kit (with its dependencies)
/// offers neither a full-screen redraw nor reading single keys, so neither would pay for its build.
public final class LiveTerminal: @unchecked Sendable {
    private var saved: termios?
    private var restored = false

    /// Switches the terminal over. Standard input keeps its mode when it is not a terminal (the
    /// view then quits on Ctrl-C or SIGTERM only).
    public init() {
        if isatty(STDIN_FILENO) == 1 {
            var mode = termios()
            if tcgetattr(STDIN_FILENO, &mode) == 0 {
                saved = mode
                mode.c_lflag &= ~tcflag_t(ICANON | ECHO)
                // Every key on its own, at once: read returns after one byte, with no timeout.
                withUnsafeMutableBytes(of: &mode.c_cc) { cc in
                    cc[Int(VMIN)] = 1
                    cc[Int(VTIME)] = 0
                }
                _ = tcsetattr(STDIN_FILENO, TCSANOW, &mode)
            }
        }
        write(Self.enterAlternateScreen + Self.hideCursor)
    }

    /// Leaves the alternate screen, shows the cursor and gives standard input its mode back. Once.
    public func restore() {
        guard !restored else { return }
        restored = true
        write(Self.showCursor + Self.leaveAlternateScreen)
        if var mode = saved { _ = tcsetattr(STDIN_FILENO, TCSANOW, &mode) }
    }

    deinit { restore() }

    /// Whether keys can be read from standard input.
    public var readsKeys: Bool { saved != nil }

    /// The screen's size in characters; 80 × 24 when the terminal does not say.
    public var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Draws `lines` over the previous frame: from the top left, each line cleared to its end,
    /// then the rest of the screen cleared, in one write so the frame never shows half drawn.
    /// Each line is cut to the screen's width and the frame to its height, so nothing scrolls.
    public func draw(_ lines: [StyledLine]) {
        let (columns, rows) = size
        var frame = Self.home
        for line in lines.prefix(rows) {
            frame += line.rendered(width: columns) + Self.clearToEndOfLine + "\r\n"
        }
        frame += Self.clearToEndOfScreen
        write(frame)
    }

    /// Waits up to `timeout` for a key or for `stop`; returns the keys read (empty when the time
    /// ran out or `stop` fired). Blocks: call it on a thread of its own.
    public func keys(waitingAtMost timeout: Duration, stop: Int32) -> [UInt8] {
        var fds = [pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
        if readsKeys { fds.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&fds, nfds_t(fds.count), milliseconds) > 0, fds.count == 2, fds[1].revents & Int16(POLLIN) != 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        return count > 0 ? Array(buffer.prefix(count)) : []
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static let enterAlternateScreen = "\u{1B}[?1049h"
    static let leaveAlternateScreen = "\u{1B}[?1049l"
    static let hideCursor = "\u{1B}[?25l"
    static let showCursor = "\u{1B}[?25h"
    static let home = "\u{1B}[H"
    static let clearToEndOfLine = "\u{1B}[K"
    static let clearToEndOfScreen = "\u{1B}[J"
}

/// A line of a view and how to show it on a terminal.
public struct StyledLine: Sendable, Equatable {
    public enum Style: String, Sendable {
        case plain = ""
        case bold = "\u{1B}[1m"
        case dim = "\u{1B}[2m"
        case warning = "\u{1B}[33m"  // yellow
        case alarm = "\u{1B}[31m"  // red
    }

    public var text: String
    public var style: Style

    public init(text: String, style: Style = .plain) {
        self.text = text
        self.style = style
    }

    /// The line cut to `width` characters, with its style around it.
    public func rendered(width: Int) -> String {
        let cut = text.count > width ? String(text.prefix(width)) : text
        return style == .plain ? cut : style.rawValue + cut + "\u{1B}[0m"
    }
}
