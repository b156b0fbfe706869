// Annotations the cluster functions write that shared/api does not define (yet).
import { API_GROUPS } from "../../shared/api/groups.ts";

/** On a server's StatefulSet: the removal phase of a server being replaced (`Requested`, ...). */
export const REMOVAL_ANNOTATION = `${API_GROUPS.cluster}/removal`;
