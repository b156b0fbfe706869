// What integration tests import from the harness.
export { useNamespace, createNamespace, deleteNamespace, type TestNamespace } from "./namespace.ts";
export { kubeConfig, apiStatus, apiMessage } from "./kube.ts";
export { waitFor, sleep, type WaitOptions } from "./wait.ts";
export { isPodReady, waitForReadyPods, waitForStatefulSetReady, waitForCondition } from "./conditions.ts";
export { installCrds, loadCrdFiles } from "./crds.ts";
export { ensureBinaries, checkNatsServer, MIN_NATS_SERVER_VERSION, type Binaries } from "./binaries.ts";
export { startControlPlane, stopControlPlane } from "./control-plane.ts";
