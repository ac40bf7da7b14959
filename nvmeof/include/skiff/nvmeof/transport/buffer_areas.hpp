// The memory areas transports receive and send I/O data in (one per connection: its request
// slot buffers). A DMA backend (hostmem) registers an area with its device once, on the first I/O
// it sees in it, and then moves data straight between the area and its storage: no bounce copy.
// Registration happens at connection setup and teardown (a mutex, off the data path); backends
// compare generation() per I/O (one atomic load) to learn that an area went away.
#pragma once

#include <cstddef>
#include <cstdint>

namespace skiff::nvmeof::transport {

struct BufferArea {
    uint8_t *base = nullptr;
    size_t len = 0;
};

namespace buffer_areas {

void add(uint8_t *base, size_t len);
void remove(uint8_t *base);
// Changes whenever an area is removed.
uint64_t generation();
// The registered area holding [p, p + len), if any.
bool find(const void *p, size_t len, BufferArea &out);

} // namespace buffer_areas
} // namespace skiff::nvmeof::transport
