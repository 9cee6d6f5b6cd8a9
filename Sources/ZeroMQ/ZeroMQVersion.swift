import CZeroMQ

public enum ZeroMQVersion {
    /// The libzmq version linked at run time, as "major.minor.patch".
    public static var string: String {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }
}
