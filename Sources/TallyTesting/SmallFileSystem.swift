import Foundation

#if canImport(Glibc)
import Glibc
import TallyLifecycle
#endif

/// A file system of a few megabytes (tmpfs with a size), mounted on a fresh directory: where a
/// test shows what a service does when the disk under its data fills up. `fill()` takes every
/// byte left with a filler file and `free()` removes it, so the test decides when the disk is
/// full and when space returns.
///
/// Made and removed by the test itself; needs root (`mount`). Where the machine does not allow
/// it, `whyUnavailable` says why, for the suite's `.enabled(if:)`.
public final class SmallFileSystem: @unchecked Sendable {
    /// Where it is mounted.
    public let path: String
    private var filler: String { "\(path)/filler" }
    private let lock = NSLock()
    private var mounted = true

    /// Why a file system cannot be mounted here, or nil when it can (checked once, by mounting
    /// and unmounting one).
    public static let whyUnavailable: String? = {
        guard geteuid() == 0 else { return "mounting a file system needs root" }
        guard let probe = try? SmallFileSystem(megabytes: 1) else {
            return "this machine does not allow mounting a tmpfs (mount -t tmpfs failed)"
        }
        probe.unmount()
        return nil
    }()

    /// Mounts a tmpfs of `megabytes` on a fresh directory under the temporary directory.
    public init(megabytes: Int) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("tally-disk-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        do {
            try Self.run(["mount", "-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0755", "tmpfs", path])
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
    }

    /// Writes a filler file until the file system refuses (ENOSPC), down to its last byte.
    /// Returns the bytes it took.
    @discardableResult
    public func fill() throws -> Int {
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure("cannot create \(filler): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var written = 0
        // Large pieces first, then single bytes for the last page the large ones did not fit.
        for size in [1 << 16, 1] {
            let piece = [UInt8](repeating: 0, count: size)
            while true {
                let count = piece.withUnsafeBytes { write(fd, $0.baseAddress, size) }
                if count > 0 {
                    written += count
                    continue
                }
                guard count < 0 else { break }
                let code = errno
                if code == EINTR { continue }
                guard code == ENOSPC else { throw Failure("writing \(filler): \(String(cString: strerror(code)))") }
                break
            }
        }
        return written
    }

    /// Removes the filler: the space it took is free again.
    public func free() throws {
        try FileManager.default.removeItem(atPath: filler)
    }

    /// Unmounts it (lazily, should a process still hold a file there) and removes the directory.
    /// Stop the processes that use it first.
    public func unmount() {
        let already = lock.withLock { () -> Bool in
            defer { mounted = false }
            return !mounted
        }
        guard !already else { return }
        _ = try? Self.run(["umount", "--lazy", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    deinit { unmount() }

    private static func run(_ arguments: [String]) throws {
        guard let program = ["/usr/bin/\(arguments[0])", "/bin/\(arguments[0])"].first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { throw Failure("no \(arguments[0]) command") }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("\(arguments[0])-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let ended = try ChildSpawn.run([program] + arguments.dropFirst(), output: output)
        guard ended.succeeded else {
            throw Failure("\(arguments.joined(separator: " ")) failed: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
