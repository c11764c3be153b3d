import { describe, expect, test } from "bun:test";
import {
  blockedAddressReason,
  blockedHostNameReason,
  isPublicAddress,
  parseIPv6,
} from "../../src/net/address-policy.ts";

describe("isPublicAddress", () => {
  test.each([
    "1.1.1.1",
    "8.8.8.8",
    "93.184.216.34",
    "9.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.0",
    "169.253.255.255",
    "169.255.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.0",
    "192.0.3.0",
    "192.88.98.255",
    "192.167.255.255",
    "192.169.0.0",
    "198.17.255.255",
    "198.20.0.0",
    "203.0.112.255",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "[2606:4700:4700::1111]",
    "2a00:1450:4001:80e::200e",
    "::ffff:1.1.1.1",
    "::ffff:101:101",
    "64:ff9b::808:808",
    "2002:808:808::1",
    "2001:db9::1",
    "fbff::1",
    "fe7f::1",
  ])("%s is public", (ip) => {
    expect(blockedAddressReason(ip)).toBeUndefined();
    expect(isPublicAddress(ip)).toBe(true);
  });

  test.each([
    "0.0.0.0",
    "10.255.255.255",
    "100.64.0.0",
    "100.127.255.255",
    "127.255.255.254",
    "169.254.0.0",
    "172.16.0.0",
    "172.31.255.255",
    "192.0.0.255",
    "192.0.2.255",
    "192.168.255.255",
    "198.18.0.0",
    "198.19.255.255",
    "224.0.0.0",
    "239.255.255.255",
    "240.0.0.1",
    "::",
    "::1",
    "::a00:1",
    "::ffff:10.0.0.1",
    "::ffff:a00:1",
    "64:ff9b::a9fe:a9fe",
    "2002:c0a8:101::",
    "2001::1",
    "2001:0:ffff:ffff:ffff:ffff:ffff:ffff",
    "fc00::",
    "fdff:ffff::1",
    "fe80::1%eth0",
    "febf::1",
    "fec0::1",
    "feff::1",
    "ff00::",
    "fd00:ec2::254",
  ])("%s is not", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
    expect(blockedAddressReason(ip)).toBeString();
  });

  // Anything that is not a canonical literal fails closed rather than being guessed at.
  test.each([
    "0177.0.0.1",
    "127.1",
    "2130706433",
    "1.2.3.256",
    "1.2.3",
    "example.com",
    "",
    "1::2::3",
    "1:2:3:4:5:6:7:8:9",
  ])("%s is not a canonical address", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });
});

describe("parseIPv6", () => {
  test("expands :: and an embedded dotted IPv4", () => {
    expect(parseIPv6("::ffff:127.0.0.1")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6("fd00:ec2::254")).toEqual([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254]);
    expect(parseIPv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  test("refuses malformed text", () => {
    for (const bad of ["1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8::", "12345::", "g::1", "::1.2.3", "1.2.3.4"]) {
      expect(parseIPv6(bad)).toBeUndefined();
    }
  });
});

describe("blockedHostNameReason", () => {
  test.each([
    "localhost",
    "LocalHost",
    "localhost.",
    "localhost..",
    "a.b.localhost",
    "printer.local",
    "x.local.",
    "metadata.google.internal",
    "",
  ])("%s is refused", (name) => {
    expect(blockedHostNameReason(name)).toBeString();
  });

  test.each(["example.com", "localhost.example.com", "mylocal", "local.example", "internal", "internal.example.com"])(
    "%s may be resolved",
    (name) => {
      expect(blockedHostNameReason(name)).toBeUndefined();
    },
  );
});
