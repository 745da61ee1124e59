import { Controller, Get, Inject, Post, Req } from '@nestjs/common';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { ArcgisRequest, publicRoot } from '../core/http/arcgis-request';
import { CurrentCaller, Operation, OptionalCaller, Public } from '../core/http/decorators';
import { usernameParam } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { Caller } from './caller';
import {
  CreateRoleDto, CreateUserDto, GenerateTokenDto, RevokeTokenDto, SetPrivilegesDto, UpdateUserRoleDto,
} from './identity.dto';
import { IdentityService } from './identity.service';
import { TokenService } from './token.service';

@Controller('sharing/rest')
export class IdentityController {
  constructor(
    private readonly identity: IdentityService,
    private readonly tokens: TokenService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public() @Post('generateToken')
  generateToken(@Params(GenerateTokenDto) p: GenerateTokenDto, @Req() req: ArcgisRequest) {
    return this.tokens.generate(p, req.ip, publicRoot(req, this.config).startsWith('https:'), req.caller);
  }

  /** Passwords must not travel in URLs, which end up in logs and proxies. */
  @Public() @Get('generateToken')
  generateTokenGet() {
    throw Errors.badRequest('Unable to generate token.', ['generateToken requires POST.']);
  }

  @Post('oauth2/revokeToken')
  revokeToken(@CurrentCaller() caller: Caller, @Params(RevokeTokenDto) p: RevokeTokenDto) {
    return this.tokens.revoke(caller, p.auth_token);
  }

  @Operation('community/self')
  self(@CurrentCaller() caller: Caller) {
    return this.identity.self(caller);
  }

  @Public() @Operation('community/users/:username')
  user(@OptionalCaller() caller: Caller | undefined, @Req() req: ArcgisRequest) {
    return this.identity.user(caller, usernameParam(req.params.username as string));
  }

  @Public() @Operation('portals/self')
  portalSelf(@OptionalCaller() caller: Caller | undefined, @Req() req: ArcgisRequest) {
    return this.identity.portalSelf(caller, publicRoot(req, this.config));
  }

  @Post('portals/self/createRole')
  createRole(@CurrentCaller() caller: Caller, @Params(CreateRoleDto) p: CreateRoleDto) {
    return this.identity.createRole(caller, p);
  }

  @Post('portals/self/roles/:roleId/setPrivileges')
  setPrivileges(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(SetPrivilegesDto) p: SetPrivilegesDto) {
    return this.identity.setPrivileges(caller, req.params.roleId as string, p.privileges);
  }

  @Post('portals/self/updateUserRole')
  updateUserRole(@CurrentCaller() caller: Caller, @Params(UpdateUserRoleDto) p: UpdateUserRoleDto) {
    return this.identity.updateUserRole(caller, p);
  }
}

/** ArcGIS Enterprise's administrative API, where user creation lives. */
@Controller('portaladmin/security/users')
export class PortalAdminController {
  constructor(private readonly identity: IdentityService) {}

  @Post('createUser')
  createUser(@CurrentCaller() caller: Caller, @Params(CreateUserDto) p: CreateUserDto) {
    return this.identity.createUser(caller, p);
  }
}
