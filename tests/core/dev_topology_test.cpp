// Devices, device lists and representors (spec 5.2, rules 6-11).
#include <doca_dev.h>
#include <doca_mmap.h>

#include "mmap_fixture.hpp"

#include <skiff/core/device.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <atomic>
#include <set>
#include <thread>
#include <string>
#include <unistd.h>
#include <vector>

using skiff::test::ScopedEnv;

namespace {

struct DevList {
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    doca_error_t status;
    DevList() { status = doca_devinfo_create_list(&list, &n); }
    ~DevList() {
        if (list != nullptr) doca_devinfo_destroy_list(list);
    }
    std::string pci(uint32_t i) const {
        char buf[DOCA_DEVINFO_PCI_ADDR_SIZE];
        EXPECT_EQ(doca_devinfo_get_pci_addr_str(list[i], buf), DOCA_SUCCESS);
        return buf;
    }
    std::string iface(uint32_t i) const {
        char buf[DOCA_DEVINFO_IFACE_NAME_SIZE];
        EXPECT_EQ(doca_devinfo_get_iface_name(list[i], buf, sizeof(buf)), DOCA_SUCCESS);
        return buf;
    }
    doca_devinfo *by_iface(const std::string &name) const {
        for (uint32_t i = 0; i < n; ++i)
            if (iface(i) == name) return list[i];
        return nullptr;
    }
};

std::string write_temp(const std::string &text) {
    char path[] = "/tmp/skiff-topology-XXXXXX";
    int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    close(fd);
    std::ofstream(path) << text;
    return path;
}

std::string rep_pci(doca_devinfo_rep *rep) {
    char buf[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
    EXPECT_EQ(doca_devinfo_rep_get_pci_addr_str(rep, buf), DOCA_SUCCESS);
    return buf;
}

} // namespace

TEST(DevTopology, HostSideListsTheFiveHostFunctionsOfTheDefaultTopology) {
    ScopedEnv side("SKIFF_SIDE", "host");
    DevList l;
    ASSERT_EQ(l.status, DOCA_SUCCESS);
    std::set<std::string> pcis;
    for (uint32_t i = 0; i < l.n; ++i) pcis.insert(l.pci(i));
    EXPECT_EQ(pcis, (std::set<std::string>{"0000:0b:00.0", "0000:0b:00.1", "0000:0b:00.2", "0000:0b:00.3",
                                           "0000:0b:00.4"}));
}

TEST(DevTopology, DpuSideListsPfsP0P1AndTheirSfs) {
    ScopedEnv side("SKIFF_SIDE", "dpu");
    DevList l;
    ASSERT_EQ(l.status, DOCA_SUCCESS);
    ASSERT_NE(l.by_iface("p0"), nullptr);
    ASSERT_NE(l.by_iface("p1"), nullptr);
    EXPECT_EQ(l.n, 4u);
    uint8_t eq = 0;
    ASSERT_EQ(doca_devinfo_is_equal_pci_addr(l.by_iface("p0"), "03:00.0", &eq), DOCA_SUCCESS);
    EXPECT_EQ(eq, 1);
    ASSERT_EQ(doca_devinfo_is_equal_pci_addr(l.by_iface("p1"), "0000:03:00.0", &eq), DOCA_SUCCESS);
    EXPECT_EQ(eq, 0);
}

TEST(DevTopology, MalformedPciAddressIsInvalidValue) {
    ScopedEnv side("SKIFF_SIDE", "dpu");
    DevList l;
    uint8_t eq = 0;
    EXPECT_EQ(doca_devinfo_is_equal_pci_addr(l.list[0], "03:00", &eq), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_is_equal_pci_addr(l.list[0], "zz:00.0", &eq), DOCA_ERROR_INVALID_VALUE);
}

TEST(DevTopology, PropertyBufferTooSmallIsInvalidValue) {
    ScopedEnv side("SKIFF_SIDE", "dpu");
    DevList l;
    char small[2];
    EXPECT_EQ(doca_devinfo_get_iface_name(l.list[0], small, sizeof(small)), DOCA_ERROR_INVALID_VALUE);
    char ib[DOCA_DEVINFO_IBDEV_NAME_SIZE] = "x";
    EXPECT_EQ(doca_devinfo_get_ibdev_name(l.list[0], ib, sizeof(ib)), DOCA_SUCCESS);
    EXPECT_STREQ(ib, ""); // an emulated function has no rdma-core device behind it
    uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];
    EXPECT_EQ(doca_devinfo_get_mac_addr(l.list[0], mac, sizeof(mac)), DOCA_SUCCESS);
    EXPECT_EQ(mac[0] & 0x02, 0x02); // locally administered
}

// NVIDIA's samples (DOCA 3.x common.c) skip SFs by their function type when they look for a PF,
// and open an SF by its index.
TEST(DevTopology, FunctionTypeAndSfIndexNameTheDefaultTopologysFunctions) {
    ScopedEnv side("SKIFF_SIDE", "dpu");
    DevList l;
    ASSERT_EQ(l.status, DOCA_SUCCESS);
    doca_pci_func_type type{};
    uint32_t sf_index = 99;
    ASSERT_EQ(doca_devinfo_get_pci_func_type(l.by_iface("p0"), &type), DOCA_SUCCESS);
    EXPECT_EQ(type, DOCA_PCI_FUNC_TYPE_PF);
    EXPECT_EQ(doca_devinfo_get_sf_index(l.by_iface("p0"), &sf_index), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(sf_index, 99u) << "untouched on failure";
    ASSERT_EQ(doca_devinfo_get_pci_func_type(l.by_iface("en3f0pf0sf0"), &type), DOCA_SUCCESS);
    EXPECT_EQ(type, DOCA_PCI_FUNC_TYPE_SF);
    ASSERT_EQ(doca_devinfo_get_sf_index(l.by_iface("en3f0pf0sf0"), &sf_index), DOCA_SUCCESS);
    EXPECT_EQ(sf_index, 0u);
    EXPECT_EQ(doca_devinfo_get_pci_func_type(nullptr, &type), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_get_pci_func_type(l.list[0], nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_devinfo_get_sf_index(l.list[0], nullptr), DOCA_ERROR_INVALID_VALUE);

    ScopedEnv host("SKIFF_SIDE", "host");
    DevList h;
    ASSERT_EQ(h.status, DOCA_SUCCESS);
    ASSERT_EQ(doca_devinfo_get_pci_func_type(h.by_iface("ens1f0v0"), &type), DOCA_SUCCESS);
    EXPECT_EQ(type, DOCA_PCI_FUNC_TYPE_VF);
}

TEST(DevTopology, ATopologyFileGivesAnSfItsIndexAndRefusesOneOnAPf) {
    std::string path = write_temp(R"({"side":"dpu","dpu":[{"name":"p0","pci":"03:00.0"},
        {"name":"p0s7","pci":"03:00.0","type":"sf","sf_index":7}]})");
    ScopedEnv topo("SKIFF_TOPOLOGY", path);
    ScopedEnv side("SKIFF_SIDE", "dpu");
    DevList l;
    ASSERT_EQ(l.status, DOCA_SUCCESS);
    uint32_t sf_index = 0;
    ASSERT_EQ(doca_devinfo_get_sf_index(l.by_iface("p0s7"), &sf_index), DOCA_SUCCESS);
    EXPECT_EQ(sf_index, 7u);
    for (const char *bad : {R"({"dpu":[{"name":"p0","pci":"03:00.0","sf_index":1}]})",
                            R"({"dpu":[{"name":"s","pci":"03:00.0","type":"sf","sf_index":-1}]})",
                            R"({"dpu":[{"name":"s","pci":"03:00.0","type":"sf","sf_index":"1"}]})"}) {
        std::ofstream(path) << bad;
        DevList refused;
        EXPECT_EQ(refused.status, DOCA_ERROR_INVALID_VALUE) << bad;
    }
    std::remove(path.c_str());
}

TEST(DevTopology, Rule6_DevinfoListIsASnapshotOfTheTopologyFile) {
    std::string path = write_temp(R"({"side":"dpu","dpu":[{"name":"p0","pci":"03:00.0"}]})");
    ScopedEnv topo("SKIFF_TOPOLOGY", path);
    ScopedEnv side("SKIFF_SIDE", "dpu");
    DevList before;
    ASSERT_EQ(before.status, DOCA_SUCCESS);
    ASSERT_EQ(before.n, 1u);

    // The "bus reset": the function moves to another address.
    std::ofstream(path)
        << R"({"side":"dpu","dpu":[{"name":"p0","pci":"05:00.0"},{"name":"p1","pci":"05:00.1"}]})";
    DevList after;
    ASSERT_EQ(after.status, DOCA_SUCCESS);
    EXPECT_EQ(before.n, 1u);
    EXPECT_EQ(before.pci(0), "0000:03:00.0");
    EXPECT_EQ(after.n, 2u);
    EXPECT_EQ(after.pci(0), "0000:05:00.0");
    std::remove(path.c_str());
}

TEST(DevTopology, BadTopologyFileFailsListingWithInvalidValue) {
    std::string path = write_temp(R"({"dpu":[{"name":"p0","pci":"3:0.0"}]})");
    ScopedEnv topo("SKIFF_TOPOLOGY", path);
    DevList l;
    EXPECT_EQ(l.status, DOCA_ERROR_INVALID_VALUE);
    std::remove(path.c_str());
    ScopedEnv bad_side("SKIFF_SIDE", "middle");
    ScopedEnv no_topo("SKIFF_TOPOLOGY", "");
    DevList l2;
    EXPECT_EQ(l2.status, DOCA_ERROR_INVALID_VALUE);
}

TEST(DevTopology, Rule7_DestroyingTheListKeepsOpenedDevicesUsable) {
    ScopedEnv side("SKIFF_SIDE", "dpu");
    doca_dev *dev = nullptr;
    {
        DevList l;
        ASSERT_EQ(doca_dev_open(l.by_iface("p1"), &dev), DOCA_SUCCESS);
    }
    doca_devinfo *info = doca_dev_as_devinfo(dev);
    ASSERT_NE(info, nullptr);
    char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
    ASSERT_EQ(doca_devinfo_get_pci_addr_str(info, pci), DOCA_SUCCESS);
    EXPECT_STREQ(pci, "0000:03:00.1");
    EXPECT_EQ(doca_dev_close(nullptr), DOCA_SUCCESS) << "closing nothing is nothing to do";
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}

TEST(DevTopology, Rule8_OpeningTheSameDeviceTwiceReturnsTheSameHandleAndCloseIsCounted) {
    ScopedEnv side("SKIFF_SIDE", "dpu");
    DevList l1, l2;
    doca_dev *a = nullptr, *b = nullptr, *c = nullptr;
    ASSERT_EQ(doca_dev_open(l1.by_iface("p0"), &a), DOCA_SUCCESS);
    ASSERT_EQ(doca_dev_open(l1.by_iface("p0"), &b), DOCA_SUCCESS);
    ASSERT_EQ(doca_dev_open(l2.by_iface("p0"), &c), DOCA_SUCCESS); // same device from another list
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, c);
    // Two closes leave the device usable by the third opener: an mmap can still take it.
    EXPECT_EQ(doca_dev_close(a), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(b), DOCA_SUCCESS);
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_add_dev(m, c), DOCA_SUCCESS);
    // The last close is refused while an mmap holds the device.
    EXPECT_EQ(doca_dev_close(c), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(c), DOCA_SUCCESS);
}

TEST(DevTopology, Rule9_RepresentorsComeOnlyThroughAParentPfAndShareTheHostFunctionAddress) {
    doca_dev *pf0 = skiff::test::open_host_pf0();
    ASSERT_NE(pf0, nullptr);
    doca_devinfo_rep **reps = nullptr;
    uint32_t nreps = 0;
    EXPECT_EQ(doca_devinfo_rep_create_list(pf0, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &nreps),
              DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_dev_close(pf0), DOCA_SUCCESS);

    doca_dev *p0 = skiff::test::open_dpu_p0();
    ASSERT_NE(p0, nullptr);
    uint8_t all = 0;
    ASSERT_EQ(doca_devinfo_rep_cap_is_filter_all_supported(doca_dev_as_devinfo(p0), &all), DOCA_SUCCESS);
    EXPECT_EQ(all, 1);
    ASSERT_EQ(doca_devinfo_rep_create_list(p0, DOCA_DEVINFO_REP_FILTER_NET, &reps, &nreps), DOCA_SUCCESS);
    // The list stays valid after its parent is closed.
    EXPECT_EQ(doca_dev_close(p0), DOCA_SUCCESS);
    std::set<std::string> pcis;
    doca_devinfo_rep *hpf0 = nullptr;
    for (uint32_t i = 0; i < nreps; ++i) {
        pcis.insert(rep_pci(reps[i]));
        uint8_t eq = 0;
        ASSERT_EQ(doca_devinfo_rep_is_equal_pci_addr(reps[i], "0b:00.0", &eq), DOCA_SUCCESS);
        if (eq) hpf0 = reps[i];
    }
    EXPECT_EQ(nreps, 4u); // hpf0, hpf0vf0, hpf0vf1, pf0sf0
    EXPECT_EQ(pcis, (std::set<std::string>{"0000:0b:00.0", "0000:0b:00.2", "0000:0b:00.3", "0000:03:00.0"}));
    ASSERT_NE(hpf0, nullptr);
    doca_pci_func_type type{};
    ASSERT_EQ(doca_devinfo_rep_get_pci_func_type(hpf0, &type), DOCA_SUCCESS);
    EXPECT_EQ(type, DOCA_PCI_FUNC_TYPE_PF);
    char vuid[DOCA_DEVINFO_REP_VUID_SIZE];
    ASSERT_EQ(doca_devinfo_rep_get_vuid(hpf0, vuid, sizeof(vuid)), DOCA_SUCCESS);
    EXPECT_GT(std::string(vuid).size(), 0u);

    doca_dev_rep *rep = nullptr;
    ASSERT_EQ(doca_dev_rep_open(hpf0, &rep), DOCA_SUCCESS);
    EXPECT_EQ(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
    EXPECT_EQ(rep_pci(doca_dev_rep_as_devinfo(rep)), "0000:0b:00.0");
    EXPECT_EQ(doca_dev_rep_close(rep), DOCA_SUCCESS);
}

TEST(DevTopology, RepresentorFiltersSelectNetOrEmulatedAndRejectUnknownBits) {
    std::string path = write_temp(R"({"dpu":[{"name":"p0","pci":"03:00.0","representors":[
        {"name":"hpf0","pci":"0b:00.0"},
        {"name":"nvme0","pci":"0b:00.5","type":"vf","kind":"emulated","hotplug":true}]}]})");
    ScopedEnv topo("SKIFF_TOPOLOGY", path);
    doca_dev *p0 = skiff::test::open_dpu_p0();
    ASSERT_NE(p0, nullptr);
    doca_devinfo_rep **reps = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_rep_create_list(p0, DOCA_DEVINFO_REP_FILTER_EMULATED, &reps, &n), DOCA_SUCCESS);
    ASSERT_EQ(n, 1u);
    EXPECT_EQ(rep_pci(reps[0]), "0000:0b:00.5");
    uint8_t hotplug = 0;
    EXPECT_EQ(doca_devinfo_rep_get_is_hotplug(reps[0], &hotplug), DOCA_SUCCESS);
    EXPECT_EQ(hotplug, 1);
    doca_devinfo_rep_destroy_list(reps);
    ASSERT_EQ(doca_devinfo_rep_create_list(p0, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 2u);
    doca_devinfo_rep_destroy_list(reps);
    EXPECT_EQ(doca_devinfo_rep_create_list(p0, 1 << 7, &reps, &n), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dev_close(p0), DOCA_SUCCESS);
    std::remove(path.c_str());
}

TEST(DevTopology, Rule10_CapabilitiesFollowTheSide) {
    doca_dev *pf0 = skiff::test::open_host_pf0();
    doca_dev *p0 = skiff::test::open_dpu_p0();
    ASSERT_NE(pf0, nullptr);
    ASSERT_NE(p0, nullptr);
    uint8_t cap = 0;
    ASSERT_EQ(doca_mmap_cap_is_export_pci_supported(doca_dev_as_devinfo(pf0), &cap), DOCA_SUCCESS);
    EXPECT_EQ(cap, 1);
    ASSERT_EQ(doca_mmap_cap_is_create_from_export_pci_supported(doca_dev_as_devinfo(pf0), &cap),
              DOCA_SUCCESS);
    EXPECT_EQ(cap, 0);
    ASSERT_EQ(doca_mmap_cap_is_export_pci_supported(doca_dev_as_devinfo(p0), &cap), DOCA_SUCCESS);
    EXPECT_EQ(cap, 0);
    ASSERT_EQ(doca_mmap_cap_is_create_from_export_pci_supported(doca_dev_as_devinfo(p0), &cap), DOCA_SUCCESS);
    EXPECT_EQ(cap, 1);
    using skiff::core::DevCap;
    EXPECT_TRUE(skiff::core::devinfo_has_cap(doca_dev_as_devinfo(pf0), DevCap::dma_memcpy));
    EXPECT_TRUE(skiff::core::dev_has_cap(p0, DevCap::dma_memcpy));
    EXPECT_TRUE(skiff::core::dev_has_cap(p0, DevCap::dpa));
    EXPECT_FALSE(skiff::core::dev_has_cap(pf0, DevCap::rdma));
    EXPECT_EQ(doca_dev_close(pf0), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(p0), DOCA_SUCCESS);
}

TEST(DevTopology, TopologyCapsCanBeOverriddenPerDevice) {
    std::string path = write_temp(R"({"dpu":[{"name":"p0","pci":"03:00.0","caps":["rdma"]}]})");
    ScopedEnv topo("SKIFF_TOPOLOGY", path);
    doca_dev *p0 = skiff::test::open_dpu_p0();
    ASSERT_NE(p0, nullptr);
    EXPECT_TRUE(skiff::core::dev_has_cap(p0, skiff::core::DevCap::rdma));
    EXPECT_FALSE(skiff::core::dev_has_cap(p0, skiff::core::DevCap::dma_memcpy));
    EXPECT_EQ(doca_dev_close(p0), DOCA_SUCCESS);
    std::remove(path.c_str());
}

// A DPU SF backed by a real rdma-core device: what DOCA's DPA samples look for on a BlueField (a
// DPA-capable PF plus a DPA- and RDMA-capable SF with its own IB device, to extend the PF's DPA to).
TEST(DevTopology, TopologyNamesTheRdmaDeviceOfAFunction) {
    std::string path = write_temp(R"({"dpu":[{"name":"p0","pci":"03:00.0","caps":["dpa"]},
        {"name":"p0s0","pci":"03:00.0","type":"sf","caps":["rdma","dpa"],"ibdev":"rxe0"}]})");
    ScopedEnv topo("SKIFF_TOPOLOGY", path);
    ScopedEnv side("SKIFF_SIDE", "dpu");
    DevList l;
    ASSERT_EQ(l.status, DOCA_SUCCESS);
    doca_devinfo *p0 = l.by_iface("p0"), *sf = l.by_iface("p0s0");
    ASSERT_NE(p0, nullptr);
    ASSERT_NE(sf, nullptr);
    char name[DOCA_DEVINFO_IBDEV_NAME_SIZE];
    ASSERT_EQ(doca_devinfo_get_ibdev_name(sf, name, sizeof(name)), DOCA_SUCCESS);
    EXPECT_STREQ(name, "rxe0");
    ASSERT_EQ(doca_devinfo_get_ibdev_name(p0, name, sizeof(name)), DOCA_SUCCESS);
    EXPECT_STREQ(name, ""); // an emulated function without "ibdev" has none
    doca_dev *dev = nullptr;
    ASSERT_EQ(doca_dev_open(sf, &dev), DOCA_SUCCESS);
    EXPECT_TRUE(skiff::core::dev_has_cap(dev, skiff::core::DevCap::rdma));
    EXPECT_TRUE(skiff::core::dev_has_cap(dev, skiff::core::DevCap::dpa));
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    for (const char *bad : {R"("")", "7"}) {
        std::ofstream(path) << std::string(R"({"dpu":[{"name":"p0s0","pci":"03:00.0","type":"sf","ibdev":)") +
                                   bad + "}]}";
        DevList refused;
        EXPECT_EQ(refused.status, DOCA_ERROR_INVALID_VALUE) << bad;
    }
    std::remove(path.c_str());
}

TEST(DevTopology, OpeningMoreDevicesThanTheLimitIsInitialization) {
    ScopedEnv limit("SKIFF_MAX_OPEN_DEVICES", "1");
    ScopedEnv side("SKIFF_SIDE", "dpu");
    DevList l;
    doca_dev *p0 = nullptr, *p1 = nullptr, *again = nullptr;
    ASSERT_EQ(doca_dev_open(l.by_iface("p0"), &p0), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_open(l.by_iface("p1"), &p1), DOCA_ERROR_INITIALIZATION);
    EXPECT_EQ(doca_dev_open(l.by_iface("p0"), &again), DOCA_SUCCESS); // re-opening is not a new device
    EXPECT_EQ(doca_dev_close(again), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(p0), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_open(l.by_iface("p1"), &p1), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(p1), DOCA_SUCCESS);
}

TEST(DevTopology, ConcurrentOpensAndClosesShareOneHandle) {
    ScopedEnv side("SKIFF_SIDE", "dpu");
    DevList l;
    doca_devinfo *info = l.by_iface("p0");
    doca_dev *held = nullptr;
    ASSERT_EQ(doca_dev_open(info, &held), DOCA_SUCCESS);
    std::atomic<int> mismatches{0}, failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 2000; ++i) {
                doca_dev *d = nullptr;
                if (doca_dev_open(info, &d) != DOCA_SUCCESS) ++failures;
                if (d != held) ++mismatches;
                if (doca_dev_close(d) != DOCA_SUCCESS) ++failures;
            }
        });
    for (auto &th : threads) th.join();
    EXPECT_EQ(mismatches.load(), 0);
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(doca_dev_close(held), DOCA_SUCCESS);
}

TEST(DevTopology, TopologyFileCarriesMacAndIpv4) {
    std::string path = write_temp(
        R"({"host":[{"name":"pf0","pci":"0b:00.0","iface":"eth7","mac":"02:11:22:33:44:55","ipv4":"192.168.100.2"}],
            "side":"host"})");
    ScopedEnv topo("SKIFF_TOPOLOGY", path);
    ScopedEnv side("SKIFF_SIDE", "host");
    DevList l;
    ASSERT_EQ(l.status, DOCA_SUCCESS);
    ASSERT_EQ(l.n, 1u);
    uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];
    ASSERT_EQ(doca_devinfo_get_mac_addr(l.list[0], mac, sizeof(mac)), DOCA_SUCCESS);
    EXPECT_EQ(mac[5], 0x55);
    uint8_t ip[DOCA_DEVINFO_IPV4_ADDR_SIZE];
    ASSERT_EQ(doca_devinfo_get_ipv4_addr(l.list[0], ip, sizeof(ip)), DOCA_SUCCESS);
    EXPECT_EQ(ip[0], 192);
    EXPECT_EQ(ip[3], 2);
    std::ofstream(path) << R"({"host":[{"name":"pf0","pci":"0b:00.0","ipv4":"300.1.1.1"}]})";
    DevList bad;
    EXPECT_EQ(bad.status, DOCA_ERROR_INVALID_VALUE);
    std::remove(path.c_str());
}

TEST(DevTopology, DefaultFunctionsHaveNoIpv4) {
    ScopedEnv side("SKIFF_SIDE", "host");
    DevList l;
    uint8_t ip[DOCA_DEVINFO_IPV4_ADDR_SIZE];
    EXPECT_EQ(doca_devinfo_get_ipv4_addr(l.list[0], ip, sizeof(ip)), DOCA_ERROR_NOT_FOUND);
    EXPECT_EQ(doca_devinfo_get_ipv4_addr(l.list[0], ip, 2), DOCA_ERROR_INVALID_VALUE);
}
