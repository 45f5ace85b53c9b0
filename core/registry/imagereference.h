#pragma once

#include "common/error.h"

#include <QString>

namespace ClusterDeck::Registry {

// An image reference split the way Docker splits it: "registry.example:5000/team/train:3",
// "ubuntu" (docker.io/library/ubuntu:latest), "repo@sha256:…". Parsing is pure.
struct ImageReference
{
    static constexpr const char *kDockerHub = "docker.io";
    // The key Docker's config.json uses for Docker Hub.
    static constexpr const char *kDockerHubAuthKey = "https://index.docker.io/v1/";

    QString domain;     // "registry.example:5000"; "docker.io" when none is written
    QString repository; // path without the domain: "team/train", "library/ubuntu"
    QString tag;        // empty when only a digest is given
    QString digest;     // "sha256:…" or empty

    static Result<ImageReference> parse(const QString &reference);

    bool isDockerHub() const { return domain == QLatin1String(kDockerHub); }
    // "registry.example:5000/team/train" (Docker Hub: "ubuntu" for library/…, "me/app").
    QString name() const;
    // The full reference to pull: name:tag, name@digest (a digest wins over a tag).
    QString pullReference() const;
    // name@digest for a given repo digest ("sha256:…").
    QString pinned(const QString &repoDigest) const;
    // How config.json names this registry: "registry.example:5000", Docker Hub's URL.
    QString authKey() const;
};

// The config.json key for a registry as the user writes it ("docker.io", "https://r:5000/").
QString normalizeRegistryKey(const QString &registry);

} // namespace ClusterDeck::Registry
