/// A service's handling times over roughly the last minute, for the percentiles of
/// `system.services`: a fixed ring of `slotCount` histograms of `slotLength` each.
///
/// Why this shape: recording runs on the broker's hot path, once per reply, so it must cost no
/// allocation and no lock (the broker is single-threaded). A request adds one to a bucket of the
/// current slot: an index computed with a few integer operations. The ring moves on from the
/// broker's heartbeat timer (`advance(to:)`), clearing the slot it reuses, so old requests leave
/// the window without any work per request; `percentiles()` runs only when someone asks.
///
/// Buckets are log-linear, as HdrHistogram's: microseconds below 8 exactly, then every power of
/// two cut into 8 equal buckets, so a reported value is within 1/16 of the true one (it is the
/// bucket's middle) from 8 µs up to 268 s (a longer time counts in the last bucket).
struct RecentLatency {
    static let slotCount = 6
    static let slotLength = Duration.seconds(10)
    /// The span the percentiles cover at most: the current slot (partly filled) and the ones before it.
    static var window: Duration { slotLength * slotCount }

    /// Buckets per power of two, as a shift: 8.
    private static let subBucketBits = 3
    private static let subBuckets = 1 << subBucketBits
    /// Powers of two above the exact range: up to 2^28 µs (268 s).
    private static let octaves = 25
    static let bucketCount = subBuckets + octaves * subBuckets

    /// `slotCount` histograms of `bucketCount` counts each, in one allocation made once.
    private var counts: [UInt32]
    private var current = 0
    private var slotStart: ContinuousClock.Instant

    init(now: ContinuousClock.Instant) {
        counts = Array(repeating: 0, count: Self.slotCount * Self.bucketCount)
        slotStart = now
    }

    /// Counts one request that took `duration`, in the current slot.
    mutating func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let microseconds = UInt64(clamping: seconds) &* 1_000_000 &+ UInt64(clamping: attoseconds / 1_000_000_000_000)
        let index = current * Self.bucketCount + Self.bucket(microseconds)
        counts[index] &+= 1
    }

    /// Moves the ring on to the slot `now` falls in, clearing every slot it passes: their requests
    /// are older than the window. Called from the broker's timer, not per request.
    mutating func advance(to now: ContinuousClock.Instant) {
        var passed = 0
        while now - slotStart >= Self.slotLength {
            slotStart = slotStart + Self.slotLength
            current = (current + 1) % Self.slotCount
            let start = current * Self.bucketCount
            for index in start..<(start + Self.bucketCount) { counts[index] = 0 }
            passed += 1
            if passed == Self.slotCount {
                // Idle longer than the whole window: every slot is clear; start afresh from now.
                slotStart = now
                break
            }
        }
    }

    /// How many requests the window holds, and the median, 90th and 99th percentile of their
    /// times in milliseconds (nil when it holds none).
    func percentiles() -> (requests: Int, p50: Double?, p90: Double?, p99: Double?) {
        var merged = [Int](repeating: 0, count: Self.bucketCount)
        for slot in 0..<Self.slotCount {
            let start = slot * Self.bucketCount
            for bucket in 0..<Self.bucketCount { merged[bucket] += Int(counts[start + bucket]) }
        }
        let total = merged.reduce(0, +)
        guard total > 0 else { return (0, nil, nil, nil) }
        func value(at fraction: Double) -> Double {
            // The smallest time at least `fraction` of the requests took no longer than.
            let rank = max(1, Int((fraction * Double(total)).rounded(.up)))
            var seen = 0
            for (bucket, count) in merged.enumerated() {
                seen += count
                if seen >= rank { return Self.middleMilliseconds(of: bucket) }
            }
            return Self.middleMilliseconds(of: Self.bucketCount - 1)
        }
        return (total, value(at: 0.5), value(at: 0.9), value(at: 0.99))
    }

    /// The bucket of a time in microseconds.
    static func bucket(_ microseconds: UInt64) -> Int {
        guard microseconds >= UInt64(subBuckets) else { return Int(microseconds) }
        let power = 63 - microseconds.leadingZeroBitCount  // >= subBucketBits
        let shift = power - subBucketBits
        let octave = shift + 1
        guard octave <= octaves else { return bucketCount - 1 }
        let sub = Int(microseconds >> UInt64(shift)) - subBuckets  // 0..<subBuckets
        return octave * subBuckets + sub
    }

    /// The middle of a bucket, in milliseconds rounded to three places.
    static func middleMilliseconds(of bucket: Int) -> Double {
        let microseconds: Double
        if bucket < subBuckets {
            microseconds = Double(bucket)
        } else {
            let octave = bucket / subBuckets
            let sub = bucket % subBuckets
            let width = UInt64(1) << UInt64(octave - 1)
            let lower = UInt64(subBuckets + sub) * width
            microseconds = Double(lower) + Double(width) / 2
        }
        return microseconds.rounded() / 1000
    }
}
