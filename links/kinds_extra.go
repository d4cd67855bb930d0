package links

// QPI is one Intel UltraPath/QuickPath link between CPU sockets at
// 10.4 GT/s: 20.8 GB/s per direction (Intel Xeon Scalable datasheet).
var QPI = Kind{Name: "upi", Family: "cpu", Bandwidth: 20.8e9, Latency: 0.5e-6}

func init() { kinds[QPI.Name] = QPI }
