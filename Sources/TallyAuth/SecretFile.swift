import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that hold secrets (a token-signing private key, a service token, a user's stored login):
/// written with mode 0600 from the first byte, and refused when read if the group or others may
/// read them, so a secret copied carelessly is noticed before it is used.
public enum SecretFile {
    /// Reads `path`, refusing a file the group or others can read or write.
    public static func read(_ path: String, what: String) throws -> Data {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw KeyFileError("cannot read \(what) \(path): \(String(cString: strerror(errno)))")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw KeyFileError(
                "\(what) \(path) can be read by others (mode \(String(mode, radix: 8))); it holds a secret: run chmod 600 \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyFileError("cannot read \(what) \(path)")
        }
        return data
    }

    /// Writes `data` to `path` (mode 0600), atomically: readers see the old file or the new one.
    /// With `replacing` false, refuses to overwrite an existing file.
    public static func write(_ data: Data, to path: String, replacing: Bool) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try createPrivateDirectory(directory) }
        if !replacing, FileManager.default.fileExists(atPath: path) {
            throw KeyFileError("\(path) exists already; move it away first, or choose another name")
        }
        let temporary = "\(path).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw KeyFileError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        do {
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            unlink(temporary)
            throw KeyFileError("cannot write \(path): \(error)")
        }
        // link() refuses an existing target, so a file made meanwhile is never overwritten.
        let moved = replacing ? rename(temporary, path) : link(temporary, path)
        let failure = errno
        if !replacing || moved != 0 { unlink(temporary) }
        guard moved == 0 else {
            throw KeyFileError(
                failure == EEXIST
                    ? "\(path) exists already; move it away first, or choose another name"
                    : "cannot write \(path): \(String(cString: strerror(failure)))")
        }
    }

    /// Creates `directory` (and its parents) with mode 0700 when it does not exist yet; an
    /// existing directory keeps its mode.
    public static func createPrivateDirectory(_ directory: String) throws {
        guard !FileManager.default.fileExists(atPath: directory) else { return }
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}

/// A key or secret file that cannot be used, with what to do about it.
public struct KeyFileError: Error, CustomStringConvertible, Equatable {
    public let description: String

    public init(_ description: String) { self.description = description }
}
