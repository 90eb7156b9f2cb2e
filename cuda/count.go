package cuda

import "fmt"

// DeviceCount is the number of CUDA devices the driver reports. Without a
// driver or device the error matches ErrNoDevice.
func DeviceCount() (int, error) {
	drv, err := loadDriver()
	if err != nil {
		return 0, fmt.Errorf("open CUDA driver: %w", err)
	}
	if code := drv.cuInit(0); code != 0 {
		err := drv.check("cuInit", code)
		if noDeviceCode(int(code)) {
			return 0, fmt.Errorf("%w: %w", ErrNoDevice, err)
		}
		return 0, err
	}
	var n int32
	if err := drv.check("cuDeviceGetCount", drv.cuDeviceGetCount(&n)); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: the driver reports 0 devices", ErrNoDevice)
	}
	return int(n), nil
}
