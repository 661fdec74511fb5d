package carrier

import "sync"

// keyedLocks serialises the work on one key (a phone number) while other keys go on: two
// administrators wiring the same number cannot interleave, so one's putting back cannot undo
// what the other stored.
type keyedLocks struct {
	mu   sync.Mutex
	held map[string]chan struct{}
}

// lock waits until key is free, takes it, and returns its release.
func (k *keyedLocks) lock(key string) (unlock func()) {
	for {
		k.mu.Lock()
		if k.held == nil {
			k.held = map[string]chan struct{}{}
		}
		ch, busy := k.held[key]
		if !busy {
			ch = make(chan struct{})
			k.held[key] = ch
			k.mu.Unlock()
			return func() {
				k.mu.Lock()
				delete(k.held, key)
				k.mu.Unlock()
				close(ch)
			}
		}
		k.mu.Unlock()
		<-ch
	}
}
