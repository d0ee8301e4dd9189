import GuideCore

/// The machine's clock, for everything the benchmarks build (they time real work, never a pretended time).
let benchClock = GuideClock.system()
