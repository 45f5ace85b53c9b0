#pragma once

// JSON of the Docker Engine API: one decode function per response type and one encode function
// per request body. Pure functions over bytes, tested over recorded daemon bodies.
// Decode errors carry no `where`; the client adds the endpoint and the request.

#include "common/error.h"
#include "dockertypes.h"
#include "exectypes.h"
#include "statstypes.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace ClusterDeck::Docker::Json {

Result<VersionInfo> decodeVersion(const QByteArray &body);
Result<SystemInfo> decodeSystemInfo(const QByteArray &body);
Result<QList<ImageSummary>> decodeImageList(const QByteArray &body);
Result<ImageInfo> decodeImageInfo(const QByteArray &body);
Result<RemovedImage> decodeRemovedImage(const QByteArray &body);
// The progress lines of an import (POST /images/create?fromSrc=-): the new image's id, or the
// daemon's message (kind Http) when a line reports an error.
Result<QString> decodeImportedImage(const QByteArray &body);
Result<CreatedContainer> decodeCreatedContainer(const QByteArray &body);
Result<ContainerInfo> decodeContainerInfo(const QByteArray &body);
Result<QList<ContainerSummary>> decodeContainerList(const QByteArray &body);
Result<QString> decodeCreatedNetworkId(const QByteArray &body);
Result<NetworkInfo> decodeNetworkInfo(const QByteArray &body);
Result<QList<NetworkInfo>> decodeNetworkList(const QByteArray &body);
Result<VolumeInfo> decodeVolumeInfo(const QByteArray &body);
Result<QList<VolumeInfo>> decodeVolumeList(const QByteArray &body);
Result<SwarmInfo> decodeSwarmInfo(const QByteArray &body);
Result<QString> decodeSwarmInitNodeId(const QByteArray &body); // a bare JSON string
Result<NodeInfo> decodeNodeInfo(const QByteArray &body);
Result<QList<NodeInfo>> decodeNodeList(const QByteArray &body);
Result<DockerEvent> decodeEvent(const QByteArray &line);
Result<QString> decodeIdResponse(const QByteArray &body, const char *what); // {"Id": "…"}
Result<ExecInfo> decodeExecInfo(const QByteArray &body);
// One object of GET /containers/{id}/stats (cgroup v1 and v2 layouts).
Result<ContainerStats> decodeContainerStats(const QByteArray &body);

// The daemon's `message` of an error body, or the trimmed body when it is not JSON.
QString decodeErrorMessage(const QByteArray &body);

// Request bodies. `apiVersion` ("1.41") keeps newer fields out of older daemons' requests.
Result<QByteArray> encodeContainerSpec(const ContainerSpec &spec, const QString &apiVersion);
QByteArray encodeNetworkSpec(const NetworkSpec &spec);
QByteArray encodeNetworkDisconnect(const QString &container, bool force);
QByteArray encodeVolumeSpec(const VolumeSpec &spec);
QByteArray encodeSwarmInit(const SwarmInitSpec &spec);
QByteArray encodeSwarmJoin(const SwarmJoinSpec &spec);
QByteArray encodeExecSpec(const ExecSpec &spec);
QByteArray encodeExecStart(bool tty);
// `filters` query value: {"label":["a=b"],"type":["container"]}; empty map → empty bytes.
QByteArray encodeFilters(const QMap<QString, QStringList> &filters);

// "1.41" < "1.9" is false: compares numerically per component.
int compareApiVersions(const QString &a, const QString &b);

} // namespace ClusterDeck::Docker::Json
