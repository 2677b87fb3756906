package rediskit

import (
	"strings"

	"github.com/redis/go-redis/v9"
)

// Slots is the number of hash slots of a Redis Cluster.
const Slots = 16384

// Slot is the Redis Cluster hash slot of key: CRC16 (XMODEM) of the key, or of its hash tag (what
// lies between the first '{' and the next '}', when that is not empty), modulo 16384. Keys with
// the same tag share a slot, which multi-key commands on a cluster require.
func Slot(key string) int {
	if s := strings.IndexByte(key, '{'); s >= 0 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	var crc uint16
	for i := range len(key) {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % Slots
}

// IsCluster reports whether rdb talks to a Redis Cluster.
func IsCluster(rdb redis.UniversalClient) bool {
	_, ok := rdb.(*redis.ClusterClient)
	return ok
}
